import { Schema } from "effect"

/** Who put something into a transcript or changed it: `user`, `host`, or `plugin:<id>`. */
export const Origin = Schema.String.check(
  Schema.isPattern(/^(user|host|plugin:.+)$/, { message: 'expected "user", "host" or "plugin:<id>"' }),
).annotate({ identifier: "Origin" })
export type Origin = typeof Origin.Type
