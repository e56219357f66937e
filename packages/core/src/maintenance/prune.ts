import { PrunableType, PruneSummary } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { Database } from "../storage/database.ts"
import { reclaim } from "../storage/reclaim.ts"
import { admitMutation } from "../turn/admission.ts"
import type { BusyError, SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import type { Origin } from "../domain/message.ts"
import { Session } from "../session/session.ts"

export { PrunableType, PruneSummary }

export interface PruneShape {
  /**
   * Prunes every tool call (input and output leave; the item stays, marked `time.pruned`) and/or removes
   * every reasoning item of every completed assistant message of a session, keeping prompts, notices and
   * final text, as one replayable event under the mutation contract's busy rules, then hands the freed
   * pages back to the file system.
   */
  session(input: {
    readonly sessionID: string
    readonly types: ReadonlyArray<PrunableType>
    readonly by: Origin
    /** Only messages completed before this time (ms since the epoch); retention prunes by age. */
    readonly completedBefore?: number
    /**
     * At most this many messages in this call (the oldest first), so one transaction stays short; the
     * summary's `messages` tells whether there may be more. Default: all of them.
     */
    readonly limit?: number
    /** Leave the freed pages to the caller (a batch of calls reclaims once). Default false. */
    readonly noReclaim?: boolean
  }): Effect.Effect<PruneSummary, SessionNotFoundError | BusyError>
}

export class Prune extends Context.Service<Prune, PruneShape>()("@opencode-ai/core/session/Prune") {
  static readonly layer = Layer.effect(
    Prune,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const database = yield* Database
      // SQLite's JSON functions find the items without bringing any message body into JS: a session of
      // any size is scanned with memory bounded by one row inside SQLite. A pruned tool call still counts
      // its (emptied) state, so only calls not yet pruned are selected.
      const prunable = database.client.query<
        { message_id: string; item_id: string; bytes: number },
        [string, string, number]
      >(
        `SELECT m.id AS message_id, i.value ->> '$.id' AS item_id, length(CAST(i.value AS BLOB)) AS bytes
         FROM session_message m, json_each(m.data, '$.content') i
         WHERE m.session_id = ?1 AND m.type = 'assistant'
           AND json_extract(m.data, '$.time.completed') IS NOT NULL
           AND json_extract(m.data, '$.time.completed') < ?3
           AND i.value ->> '$.type' IN (SELECT value FROM json_each(?2))
           AND i.value -> '$.time.pruned' IS NULL
         ORDER BY m.seq, i.key`,
      )
      const implementation = Prune.of({
        session: Effect.fn("Prune.session")(
          ({ sessionID, types, by, completedBefore = Number.MAX_SAFE_INTEGER, limit, noReclaim }) =>
            Effect.gen(function* () {
              const wanted = new Set(types)
              const summary = { sessionID, messages: 0, items: 0, bytes: 0 }
              yield* bus.transact(sessionID, () =>
                admitMutation<never>(session.sync, sessionID, () => {
                  const messages: Array<{ messageID: string; itemIDs: Array<string> }> = []
                  for (const row of prunable.iterate(sessionID, JSON.stringify([...wanted]), completedBefore)) {
                    const last = messages.at(-1)
                    if (last?.messageID === row.message_id) last.itemIDs.push(row.item_id)
                    else if (limit !== undefined && messages.length >= limit) break
                    else messages.push({ messageID: row.message_id, itemIDs: [row.item_id] })
                    summary.items++
                    summary.bytes += row.bytes
                  }
                  summary.messages = messages.length
                  return messages.length > 0 ? [draft(SessionEvent.Pruned, { types: [...wanted], messages, by })] : []
                }),
              )
              if (summary.items > 0 && !noReclaim) reclaim(database, "incremental")
              return summary
            }),
        ),
      })
      return implementation
    }),
  )
}
