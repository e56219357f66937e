import { Database, databaseStats, Session } from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { fromCore } from "./errors.ts"

/** `db.stats`: where the database's bytes are, for all sessions or one (which must exist). */
export const DbHandlers = HttpApiBuilder.group(
  Api,
  "db",
  Effect.fn(function* (handlers) {
    const database = yield* Database
    const session = yield* Session
    return handlers.handle("stats", ({ query: { sessionID } }) =>
      sessionID === undefined
        ? Effect.sync(() => databaseStats(database))
        : fromCore(session.get(sessionID)).pipe(Effect.map(() => databaseStats(database, { sessionID }))),
    )
  }),
)
