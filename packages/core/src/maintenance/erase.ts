import { EraseSummary } from "@opencode-ai/schema"
import { Clock, Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { journalReader } from "../bus/journal.ts"
import { Heap } from "../platform/heap.ts"
import { Blobs } from "../storage/blobs.ts"
import { Database } from "../storage/database.ts"
import { rebaseAfterErase } from "../storage/journal-base.ts"
import { reclaim } from "../storage/reclaim.ts"
import { SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent as E } from "../domain/event.ts"
import { type AssistantItem, type Message, type Origin, type Queued, queuedMessage } from "../domain/message.ts"

export { EraseSummary }

/**
 * What a journal row keeps after erasure: its id, type, version and seq, every structural field (ids,
 * item types, states), and a tombstone with the SHA-256 of the original payload and the paths of the
 * fields that were emptied. Replay of a tombstoned journal gives the same projection, because only
 * content that no longer appears in the projection is erased.
 */
export interface Tombstone {
  readonly sha256: string
  readonly fields: ReadonlyArray<string>
}

type Payload = Record<string, any> & { tombstone?: Tombstone }

/** A content field of an event: its path in the payload and the empty value that keeps it decodable. */
type Field = readonly [path: string, empty: () => unknown]

const text: Field = ["text", () => ""]
const title: Field = ["title", () => ""]
const emptyRecord = () => ({})
const emptyList = () => []

/** The content fields of a permission request: it copies its call's input and the plan's description. */
const ASK_FIELDS: ReadonlyArray<Field> = [
  ["title", () => ""],
  ["resources", emptyList],
  ["save", emptyList],
  ["metadata", emptyRecord],
  ["input", emptyRecord],
]

const get = (data: Record<string, any>, path: string) =>
  path.split(".").reduce<any>((value, key) => (value == null ? undefined : value[key]), data)
const set = (data: Record<string, any>, path: string, value: unknown) => {
  const keys = path.split(".")
  const last = keys.pop()!
  const parent = keys.reduce<any>((node, key) => node?.[key], data)
  if (parent != null && last in parent) parent[last] = value
}
/** Whether a field still holds content (an erased one holds only its empty value). */
const holds = (data: Record<string, any>, [path, empty]: Field) => {
  const value = get(data, path)
  return value !== undefined && JSON.stringify(value) !== JSON.stringify(empty())
}

/** Empties `fields` of `data` in place; returns the bytes of what was there. */
const emptyFields = (data: Record<string, any>, fields: ReadonlyArray<Field>) => {
  let bytes = 0
  for (const field of fields) {
    bytes += Buffer.byteLength(JSON.stringify(get(data, field[0]) ?? ""))
    set(data, field[0], field[1]())
  }
  return bytes
}

export interface EraseShape {
  /**
   * Replaces the journaled payloads of this session's superseded content (corrected, retracted, removed,
   * pruned, and the permission requests of pruned tool calls, whose projected rows are emptied the same
   * way) with tombstones, records a `session.next.erased` event, then rebuilds the database file
   * (`VACUUM`) and truncates the WAL, so those bytes are gone from every database file. A deleted
   * session's journal is erased whole. Without the journal there is nothing to rewrite; the vacuum still
   * runs.
   */
  session(input: { readonly sessionID: string; readonly by: Origin }): Effect.Effect<EraseSummary, SessionNotFoundError>
}

export class Erase extends Context.Service<Erase, EraseShape>()("@opencode-ai/core/session/Erase") {
  static readonly layer = Layer.effect(
    Erase,
    Effect.gen(function* () {
      const bus = yield* Bus
      const database = yield* Database
      const heap = yield* Heap
      const blobs = yield* Blobs
      const { client } = database
      // Positions first, rows one at a time after: the loop rewrites the table it walks, and only one
      // payload is in memory at once.
      const positions = client.query<{ position: number }, [string]>(
        "SELECT position FROM event WHERE aggregate_id = ? ORDER BY seq",
      )
      const readEvent = client.query<{ position: number; type: string; data: string }, [number]>(
        "SELECT position, type, data FROM event WHERE position = ?",
      )
      const rewrite = client.query<unknown, [string, number]>("UPDATE event SET data = ? WHERE position = ?")
      const readMessage = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_message WHERE id = ? AND session_id = ?",
      )
      const readQueued = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_inbox WHERE message_id = ? AND session_id = ?",
      )
      const readAsk = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_permission WHERE id = ? AND session_id = ?",
      )
      const writeAsk = client.query<unknown, [string, string, string]>(
        "UPDATE session_permission SET data = ? WHERE id = ? AND session_id = ?",
      )
      const readRevert = client.query<{ revert: string | null }, [string]>("SELECT revert FROM session WHERE id = ?")
      const sessionExists = client.query<{ n: number }, [string]>("SELECT count(*) AS n FROM session WHERE id = ?")
      const journal = journalReader(client)

      /** Rewrites the journal of one session; `deleted` erases all content (no projection remains). */
      const rewriteJournal = (sessionID: string, deleted: boolean) => {
        const summary = { sessionID, events: 0, fields: 0, bytes: 0 }
        // A few recent messages only: journal rows of one message are close together in seq order.
        const cache = new Map<string, Message | null>()
        const current = (messageID: string): Message | null => {
          if (deleted) return null
          let message = cache.get(messageID)
          if (message === undefined) {
            const row = readMessage.get(messageID, sessionID)
            // Input still waiting in the inbox is live too: its delivery commits it as it waits.
            const waiting = row ? undefined : readQueued.get(messageID, sessionID)
            message = row
              ? (JSON.parse(row.data) as Message)
              : waiting
                ? queuedMessage(sessionID, JSON.parse(waiting.data) as Queued)
                : null
            if (cache.size >= 16) cache.delete(cache.keys().next().value!)
            cache.set(messageID, message)
          }
          return message
        }
        /** The item as the projection holds it now, if it is still there and not retracted. */
        const liveItem = (messageID: string, match: (item: AssistantItem) => boolean) => {
          const message = current(messageID)
          return message?.type === "assistant" ? message.content.find(match) : undefined
        }
        /** A message's own text as projected: a prompt's or notice's text, a compaction's summary. */
        const liveText = (messageID: string) => {
          const message = current(messageID)
          if (!message || message.retracted) return undefined
          if (message.type === "compaction") return message.summary
          return message.type === "user" || message.type === "synthetic" ? message.text : undefined
        }
        const byID = (id: string) => (item: AssistantItem) => item.id === id
        const byCall = (callID: string) => (item: AssistantItem) => item.type === "tool" && item.callID === callID
        /** A tool call's content is live while its item is there and not pruned. */
        const liveCall = (messageID: string, callID: string) => {
          const item = liveItem(messageID, byCall(callID))
          return item?.type === "tool" && item.time.pruned === undefined ? item : undefined
        }
        const gone = (live: boolean, ...fields: ReadonlyArray<Field>) => (live ? [] : fields)

        /** The fields of an event's payload whose content the projection no longer holds. */
        const superseded = (type: string, d: Payload): ReadonlyArray<Field> => {
          switch (type) {
            case E.PromptAdmitted.type:
            case E.Prompted.type: {
              const live = liveText(d.messageID)
              const fields: Array<Field> = live === d.prompt?.text ? [] : [["prompt.text", () => ""]]
              if (live === undefined && d.prompt?.files) fields.push(["prompt.files", emptyList])
              return fields
            }
            case E.Synthetic.type:
            case E.SyntheticQueued.type:
            case E.TextCorrected.type:
              if (d.itemID !== undefined) {
                const item = liveItem(d.messageID, byID(d.itemID))
                return gone(item?.type === "text" && item.text === d.text, text)
              }
              return gone(liveText(d.messageID) === d.text, text)
            case E.TextAppended.type:
            case E.TextEnded.type:
            case E.ReasoningAppended.type:
            case E.ReasoningEnded.type: {
              const id = d.textID ?? d.reasoningID
              const item = liveItem(d.assistantMessageID, byID(id))
              const held = item && item.type !== "tool" ? item.text : undefined
              const live =
                held !== undefined &&
                (d.offset === undefined ? held === d.text : held.slice(d.offset, d.offset + d.text.length) === d.text)
              return gone(live, text)
            }
            case E.ToolInputEnded.type:
              return gone(liveCall(d.assistantMessageID, d.callID) !== undefined, text)
            // A call's title is written from its input (`bash <command>`), so it goes with the input.
            case E.ToolCalled.type:
              return gone(liveCall(d.assistantMessageID, d.callID) !== undefined, ["input", emptyRecord], title)
            case E.ToolProgress.type:
            case E.ToolSuccess.type:
              return gone(
                liveCall(d.assistantMessageID, d.callID) !== undefined,
                ["structured", emptyRecord],
                ["content", emptyList],
                ["result", () => null],
                title,
              )
            case E.ToolFailed.type:
              return gone(
                liveCall(d.assistantMessageID, d.callID) !== undefined,
                ["structured", emptyRecord],
                ["error.message", () => ""],
                ["result", () => null],
                title,
              )
            case E.CompactionEnded.type: {
              const message = current(d.messageID)
              const live = message?.type === "compaction" ? message : undefined
              return [...gone(live?.summary === d.text, text), ...gone(live?.recent === d.recent, ["recent", () => ""])]
            }
            case E.RevertStaged.type: {
              // A revert no longer staged (cleared, moved or committed): what it restored and its diffs go;
              // the before-images they name are then collected from the blob store.
              const staged = deleted ? null : (readRevert.get(sessionID)?.revert ?? null)
              return gone(
                staged === JSON.stringify(d.revert),
                ["revert.restored", emptyList],
                ["revert.files", emptyList],
              )
            }
            case E.PermissionAsked.type: {
              // A request goes with its call: once the tool item is pruned or holds another input, what the
              // request copied from the call is superseded content too. A pending request's item is live
              // (its message is still open, so it can be neither removed nor pruned), so it is never touched.
              const item = liveCall(d.source?.messageID, d.source?.callID)
              const same =
                item !== undefined &&
                item.state.status !== "pending" &&
                JSON.stringify(item.state.input) === JSON.stringify(d.input ?? {})
              return same ? [] : ASK_FIELDS
            }
            default:
              return []
          }
        }

        const erase = (position: number) => {
          const row = readEvent.get(position)!
          const data = JSON.parse(row.data) as Payload
          const fields = superseded(row.type, data).filter((field) => holds(data, field))
          if (fields.length === 0) return row.data.length
          const bytes = emptyFields(data, fields)
          if (row.type === E.PermissionAsked.type) {
            // The projected request is built from the payload: rewritten the same way, in this transaction,
            // it stays what replay of the tombstoned journal gives.
            const projected = deleted ? undefined : readAsk.get(data.id, sessionID)
            if (projected) {
              const ask = JSON.parse(projected.data) as Record<string, any>
              emptyFields(ask, fields)
              writeAsk.run(JSON.stringify(ask), data.id, sessionID)
            }
          }
          const previous = data.tombstone
          data.tombstone = {
            sha256: previous?.sha256 ?? createHash("sha256").update(row.data).digest("hex"),
            fields: [...new Set([...(previous?.fields ?? []), ...fields.map(([path]) => path)])],
          }
          rewrite.run(JSON.stringify(data), row.position)
          summary.events++
          summary.fields += fields.length
          summary.bytes += bytes
          return row.data.length
        }
        // Chunks of ~8 MB per transaction: a huge journal never sits in one transaction's dirty pages.
        // Erasure changes no projected row except an erased request's, in the transaction of its journal
        // row, and is idempotent, so an interrupted erase is finished by running it again.
        const all = positions.all(sessionID)
        for (let index = 0; index < all.length;) {
          database.immediate(() => {
            let read = 0
            while (index < all.length && read < 8_000_000) read += erase(all[index++]!.position)
          })
          // Each chunk leaves megabytes of parsed payloads behind; collecting here keeps peak memory at a
          // chunk's worth instead of letting garbage grow with the journal.
          heap.collect()
        }
        return summary
      }

      const implementation = Erase.of({
        session: Effect.fn("Erase.session")(({ sessionID, by }) =>
          Effect.gen(function* () {
            const live = sessionExists.get(sessionID)!.n > 0
            if (!live && !journal.has(sessionID)) return yield* new SessionNotFoundError({ sessionID })
            let summary: EraseSummary = { sessionID, events: 0, fields: 0, bytes: 0 }
            if (!live) {
              // No aggregate left to record an event on: the rewrite is all there is.
              summary = rewriteJournal(sessionID, true)
            } else if (journal.has(sessionID)) {
              // Whatever `events.persist` says now: rows journaled while it was on still hold content.
              summary = rewriteJournal(sessionID, false)
              // Nothing erased, nothing recorded: a repeated erase commits no event.
              if (summary.events > 0)
                yield* bus
                  .commit(sessionID, [
                    draft(E.Erased, { events: summary.events, fields: summary.fields, bytes: summary.bytes, by }),
                  ])
                  .pipe(Effect.orDie)
            }
            // A compacted journal's snapshot is content too (docs/storage.md): taken again from what is visible.
            const now = yield* Clock.currentTimeMillis
            database.immediate(() => rebaseAfterErase(database.client, sessionID, now))
            reclaim(database, "full")
            // Before-images nothing references any more (their calls pruned, removed or erased) leave too.
            yield* Effect.promise(() => blobs.collect())
            return summary
          }),
        ),
      })
      return implementation
    }),
  )
}
