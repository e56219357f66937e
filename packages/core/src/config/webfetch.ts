import { Schema } from "effect"

/**
 * `webfetch` in `opencode.json`: where the tool may connect. By default it refuses every address that is
 * not public (loopback, private, link-local, unique-local, ...), so a fetched page cannot reach into the
 * user's own network; `allowPrivate` lifts that for every host, `allowHosts` for the hosts named (exact
 * host names or literal addresses, compared case-insensitively).
 */
export const WebfetchConfig = Schema.Struct({
  allowPrivate: Schema.optional(Schema.Boolean),
  allowHosts: Schema.optional(Schema.Array(Schema.String)),
  /** Milliseconds a fetch may take, redirects included, before it fails. Default 30000. */
  timeout: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600_000 }))),
})
export type WebfetchConfig = typeof WebfetchConfig.Type
