import { Session, Stats } from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { fromCore } from "./errors.ts"

/** `db.stats`: where the database's bytes are, for all sessions or one (which must exist). */
export const DbHandlers = HttpApiBuilder.group(
  Api,
  "db",
  Effect.fn(function* (handlers) {
    const stats = yield* Stats
    const session = yield* Session
    return handlers.handle("stats", ({ query: { sessionID } }) =>
      sessionID === undefined
        ? stats.report()
        : fromCore(session.get(sessionID)).pipe(Effect.flatMap(() => stats.report({ sessionID }))),
    )
  }),
)
