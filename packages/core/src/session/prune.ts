import { Context, Effect, Layer, Schema } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { Database } from "../storage/database.ts"
import { reclaim } from "../storage/reclaim.ts"
import { admitMutation } from "./admission.ts"
import type { BusyError, SessionNotFoundError } from "./error.ts"
import { SessionEvent } from "./event.ts"
import type { AssistantMessage, Origin } from "./message.ts"
import { Session } from "./session.ts"

export const PrunableType = Schema.Literals(["tool", "reasoning"])
export type PrunableType = typeof PrunableType.Type

export const PruneSummary = Schema.Struct({
  sessionID: Schema.String,
  messages: Schema.Number,
  parts: Schema.Number,
  /** Bytes of the removed parts' JSON. */
  bytes: Schema.Number,
})
export type PruneSummary = typeof PruneSummary.Type

export interface PruneShape {
  /**
   * Removes every part of the given types from every completed assistant message of a session, keeping
   * prompts, notices and final text, as one replayable event under the mutation contract's busy rules,
   * then hands the freed pages back to the file system.
   */
  session(input: {
    readonly sessionID: string
    readonly types: ReadonlyArray<PrunableType>
    readonly by: Origin
  }): Effect.Effect<PruneSummary, SessionNotFoundError | BusyError>
}

export class Prune extends Context.Service<Prune, PruneShape>()("@opencode-ai/core/session/Prune") {
  static readonly layer = Layer.effect(
    Prune,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const database = yield* Database
      const assistants = database.client.query<{ data: string }, [string]>(
        "SELECT data FROM session_message WHERE session_id = ? AND type = 'assistant' ORDER BY seq",
      )
      return Prune.of({
        session: ({ sessionID, types, by }) =>
          Effect.gen(function* () {
            const wanted = new Set(types)
            const summary = { sessionID, messages: 0, parts: 0, bytes: 0 }
            yield* bus
              .transact(sessionID, () =>
                admitMutation<never>(session.sync, sessionID, () => {
                  const messages: Array<{ messageID: string; partIDs: Array<string> }> = []
                  // Row by row: only one message is parsed at a time.
                  for (const row of assistants.iterate(sessionID)) {
                    const message = JSON.parse(row.data) as AssistantMessage
                    if (message.time.completed === undefined) continue
                    const parts = message.parts.filter((p) => wanted.has(p.type as PrunableType))
                    if (parts.length === 0) continue
                    messages.push({ messageID: message.id, partIDs: parts.map((p) => p.id) })
                    summary.messages++
                    summary.parts += parts.length
                    for (const part of parts) summary.bytes += Buffer.byteLength(JSON.stringify(part))
                  }
                  return messages.length > 0 ? [draft(SessionEvent.Pruned, { types: [...wanted], messages, by })] : []
                }),
              )
              .pipe(Effect.catchTag("Bus.InvalidEventError", Effect.die))
            if (summary.parts > 0) reclaim(database, "incremental")
            return summary
          }),
      })
    }),
  )
}
