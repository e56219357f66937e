import { Context, Effect, Layer, Schema } from "effect"
import { createHash } from "node:crypto"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { journalReader } from "../bus/journal.ts"
import { Database } from "../storage/database.ts"
import { reclaim } from "../storage/reclaim.ts"
import { SessionNotFoundError } from "./error.ts"
import { SessionEvent as E } from "./event.ts"
import type { Message, Origin, Part } from "./message.ts"

export const EraseSummary = Schema.Struct({
  sessionID: Schema.String,
  /** Journal rows rewritten. */
  events: Schema.Number,
  /** Content fields replaced by tombstones. */
  fields: Schema.Number,
  /** Bytes of content erased (the emptied fields' JSON). */
  bytes: Schema.Number,
})
export type EraseSummary = typeof EraseSummary.Type

/**
 * What a journal row keeps after erasure: its id, type, version and seq, every structural field (ids,
 * part types, states), and a tombstone with the SHA-256 of the original payload and the paths of the
 * fields that were emptied. Replay of a tombstoned journal gives the same projection, because only
 * content that no longer appears in the projection is erased.
 */
export interface Tombstone {
  readonly sha256: string
  readonly fields: ReadonlyArray<string>
}

type Payload = Record<string, any> & { tombstone?: Tombstone }

const CONTENT_EVENTS = new Set<string>([
  E.MessageAdmitted.type,
  E.InputQueued.type,
  E.PartUpdated.type,
  E.MessageCorrected.type,
  E.Compacted.type,
  E.PermissionAsked.type,
])

/**
 * The content fields of a permission ask, each with the empty value that keeps the event decodable
 * (`title` is a string, `patterns` an array, `metadata` a record). The ask copies its call's input and
 * the plan's description of it, so a secret in the call is in the ask too.
 */
const ASK_FIELDS: ReadonlyArray<readonly [string, () => unknown]> = [
  ["title", () => ""],
  ["patterns", () => []],
  ["metadata", () => ({})],
  ["input", () => ({})],
]

/** Fields of an ask that still hold content (an erased one holds none, so a second erase finds nothing). */
const askContent = (ask: Record<string, any>) =>
  ASK_FIELDS.filter(([field, emptied]) => JSON.stringify(ask[field] ?? emptied()) !== JSON.stringify(emptied()))

/** Empties the ask content fields `fields` of `ask` (a journal payload or a projected row) in place. */
const emptyAsk = (ask: Record<string, any>, fields: ReadonlyArray<readonly [string, () => unknown]>) => {
  let bytes = 0
  for (const [field, emptied] of fields) {
    bytes += Buffer.byteLength(JSON.stringify(ask[field] ?? ""))
    ask[field] = emptied()
  }
  return bytes
}

/** Content of one part that is superseded in the projection, as field names to empty. */
const supersededFields = (part: Part, current: Part | undefined): Array<string> => {
  if (part.type === "tool") {
    const fields: Array<string> = []
    const same = current?.type === "tool" ? current : undefined
    if (
      JSON.stringify(part.input ?? {}) !== "{}" &&
      (!same || JSON.stringify(same.input) !== JSON.stringify(part.input))
    )
      fields.push("input")
    if (part.output && (!same || same.output !== part.output)) fields.push("output")
    if (part.error && (!same || same.error !== part.error)) fields.push("error")
    // An edit's diff holds file content: it goes with the part. An emptied `{}` is not content, so a
    // second erase finds nothing to do.
    if (
      part.metadata &&
      JSON.stringify(part.metadata) !== "{}" &&
      (!same || JSON.stringify(same.metadata) !== JSON.stringify(part.metadata))
    )
      fields.push("metadata")
    return fields
  }
  if (!part.text) return []
  return current && current.type === part.type && current.text === part.text ? [] : ["text"]
}

/** Empties a field; returns the bytes of what was there. */
const empty = (part: Record<string, any>, field: string) => {
  const before = Buffer.byteLength(JSON.stringify(part[field] ?? ""))
  part[field] = field === "input" || field === "metadata" ? {} : ""
  return before
}

export interface EraseShape {
  /**
   * Replaces the journaled payloads of this session's superseded content (corrected, retracted, removed,
   * pruned, and the permission asks of removed or pruned tool calls, whose projected rows are emptied the
   * same way) with tombstones, records a `session.erased` event, then rebuilds the database file
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
      const readAsk = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_permission WHERE id = ? AND session_id = ?",
      )
      const writeAsk = client.query<unknown, [string, string, string]>(
        "UPDATE session_permission SET data = ? WHERE id = ? AND session_id = ?",
      )
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
            message = row ? (JSON.parse(row.data) as Message) : null
            if (cache.size >= 16) cache.delete(cache.keys().next().value!)
            cache.set(messageID, message)
          }
          return message
        }
        const livePart = (messageID: string, partID: string) => {
          const message = current(messageID)
          return message && !message.retracted ? message.parts.find((p) => p.id === partID) : undefined
        }
        const erase = (position: number) => {
          const row = readEvent.get(position)!
          if (!CONTENT_EVENTS.has(row.type)) return row.data.length
          const data = JSON.parse(row.data) as Payload
          const erased: Array<string> = []
          let bytes = 0
          if (row.type === E.MessageAdmitted.type || row.type === E.InputQueued.type || row.type === E.Compacted.type) {
            const message = data.message as { id: string; parts: Array<Part & Record<string, any>> }
            message.parts.forEach((part, index) => {
              for (const field of supersededFields(part, livePart(message.id, part.id))) {
                bytes += empty(part, field)
                erased.push(`message.parts.${index}.${field}`)
              }
            })
          } else if (row.type === E.PartUpdated.type) {
            const part = data.part as Part & Record<string, any>
            for (const field of supersededFields(part, livePart(data.messageID, part.id))) {
              bytes += empty(part, field)
              erased.push(`part.${field}`)
            }
          } else if (row.type === E.PermissionAsked.type) {
            // An ask goes with its call: once the tool part is removed, pruned or holds another input,
            // what the ask copied from the call is superseded content too. A pending ask's part is live
            // (its message is still open, so it can be neither removed nor pruned), so it is never touched.
            const live = livePart(data.messageID, data.partID)
            const same = live?.type === "tool" && JSON.stringify(live.input ?? {}) === JSON.stringify(data.input ?? {})
            const fields = same ? [] : askContent(data)
            if (fields.length > 0) {
              bytes += emptyAsk(data, fields)
              for (const [field] of fields) erased.push(field)
              // The projected ask is built from the payload: rewritten the same way, in this transaction,
              // it stays what replay of the tombstoned journal gives.
              const projected = deleted ? undefined : readAsk.get(data.permissionID, sessionID)
              if (projected) {
                const ask = JSON.parse(projected.data) as Record<string, any>
                emptyAsk(ask, fields)
                writeAsk.run(JSON.stringify(ask), data.permissionID, sessionID)
              }
            }
          } else if (data.text) {
            const live = livePart(data.messageID, data.partID)
            if (!(live?.type === "text" && live.text === data.text)) {
              bytes += empty(data, "text")
              erased.push("text")
            }
          }
          if (erased.length === 0) return row.data.length
          const previous = data.tombstone
          data.tombstone = {
            sha256: previous?.sha256 ?? createHash("sha256").update(row.data).digest("hex"),
            fields: [...new Set([...(previous?.fields ?? []), ...erased])],
          }
          const next = JSON.stringify(data)
          rewrite.run(next, row.position)
          summary.events++
          summary.fields += erased.length
          summary.bytes += bytes

          return row.data.length
        }
        // Chunks of ~8 MB per transaction: a huge journal never sits in one transaction's dirty pages.
        // Erasure changes no projected row except an erased ask's, in the transaction of its journal row,
        // and is idempotent, so an interrupted erase is finished by running it again.
        const all = positions.all(sessionID)
        for (let index = 0; index < all.length;) {
          database.immediate(() => {
            let read = 0
            while (index < all.length && read < 8_000_000) read += erase(all[index++]!.position)
          })
          // Each chunk leaves megabytes of parsed payloads behind; collecting here keeps peak memory at a
          // chunk's worth instead of letting garbage grow with the journal.
          Bun.gc(true)
        }
        return summary
      }

      return Erase.of({
        session: ({ sessionID, by }) =>
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
            reclaim(database, "full")
            return summary
          }),
      })
    }),
  )
}
