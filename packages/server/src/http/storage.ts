import { Session, Stats } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { fromCore } from "./errors.ts"

/** `v2.storage.stats`: where the database's bytes are, for all sessions or one (which must exist). */
export const StorageHandlers = HttpApiBuilder.group(
  Api,
  "v2.storage",
  Effect.fn(function* (handlers) {
    const stats = yield* Stats
    const session = yield* Session
    return handlers.handle("stats", ({ query: { sessionID } }) =>
      (sessionID === undefined
        ? stats.report()
        : fromCore(session.get(sessionID)).pipe(Effect.flatMap(() => stats.report({ sessionID })))
      ).pipe(Effect.map((data) => ({ data }))),
    )
  }),
)
