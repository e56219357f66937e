import type { SqliteClient as SQLite } from "../platform/sqlite.ts"
import type { Envelope } from "./event.ts"

/** One journal row as stored: the payload is the event's encoded data, as JSON text. */
export interface JournalRow {
  readonly position: number
  readonly id: string
  readonly aggregate_id: string
  readonly seq: number
  readonly type: string
  readonly version: number
  readonly time: number
  readonly data: string
}

/** A journal row as an envelope, its data parsed but not decoded (tombstoned payloads stay as written). */
export const toEnvelope = (row: JournalRow): Envelope => ({
  id: row.id,
  type: row.type,
  version: row.version,
  sessionID: row.aggregate_id,
  seq: row.seq,
  time: row.time,
  data: JSON.parse(row.data),
})

/**
 * Reads of the `event` journal, for replay (global commit order) and for the durable log (one
 * session's events after a seq). Pages keep memory bounded whatever the journal's size.
 */
export const journalReader = (client: SQLite) => {
  const byPosition = client.query<JournalRow, [number, number]>(
    "SELECT position, id, aggregate_id, seq, type, version, time, data FROM event WHERE position > ? ORDER BY position LIMIT ?",
  )
  const bySession = client.query<JournalRow, [string, number, number]>(
    "SELECT position, id, aggregate_id, seq, type, version, time, data FROM event WHERE aggregate_id = ? AND seq > ? ORDER BY seq LIMIT ?",
  )
  const any = client.query<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM (SELECT 1 FROM event WHERE aggregate_id = ? LIMIT 1)",
  )
  return {
    /** Rows committed after `position`, in commit order. */
    afterPosition: (position: number, limit: number) => byPosition.all(position, limit),
    /** One session's rows with `seq > after`, in seq order. */
    ofSession: (sessionID: string, after: number, limit: number) => bySession.all(sessionID, after, limit),
    /** Whether the journal holds anything for the session (it may outlive a deleted session). */
    has: (sessionID: string) => any.get(sessionID)!.n > 0,
  }
}
