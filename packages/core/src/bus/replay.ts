import type { Database as SQLite } from "bun:sqlite"
import type { Durable, Envelope } from "./event.ts"
import { validate } from "./bus.ts"
import type { ProjectorSet } from "./projector.ts"
import type { DatabaseShape } from "../storage/database.ts"

interface JournalRow {
  id: string
  aggregate_id: string
  seq: number
  type: string
  version: number
  time: number
  data: string
}

/**
 * Rebuilds the projection from a journal into an empty database: every journaled event, in commit order,
 * decoded against its declaration and applied by the same projectors as live commits. The journal rows
 * are copied too, so the target is a complete database. Returns the number of events applied.
 */
export const replay = (source: SQLite, target: DatabaseShape, projectors: ProjectorSet, batch = 2_000): number => {
  const definitions = new Map<string, Durable>(projectors.definitions.map((d) => [`${d.type}@${d.version}`, d]))
  const read = source.query<JournalRow, [number, number]>(
    "SELECT rowid AS r, id, aggregate_id, seq, type, version, time, data FROM event WHERE rowid > ? ORDER BY rowid LIMIT ?",
  )
  const journal = target.client.query(
    "INSERT INTO event (id, aggregate_id, seq, type, version, time, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
  )
  const writeSeq = target.client.query<unknown, [string, number]>(
    "INSERT INTO event_sequence (aggregate_id, seq) VALUES (?1, ?2) ON CONFLICT (aggregate_id) DO UPDATE SET seq = ?2",
  )
  let after = 0
  let applied = 0
  for (;;) {
    const rows = read.all(after, batch) as Array<JournalRow & { r: number }>
    if (rows.length === 0) break
    target.immediate(() => {
      for (const row of rows) {
        const definition = definitions.get(`${row.type}@${row.version}`)
        if (!definition) throw new Error(`replay: unknown event ${row.type}@${row.version} (seq ${row.seq})`)
        const envelope: Envelope = {
          id: row.id,
          type: row.type,
          version: row.version,
          sessionID: row.aggregate_id,
          seq: row.seq,
          time: row.time,
          data: validate(definition, JSON.parse(row.data)).decoded,
        }
        projectors.project(envelope)
        journal.run(row.id, row.aggregate_id, row.seq, row.type, row.version, row.time, row.data)
        writeSeq.run(row.aggregate_id, row.seq)
      }
    })
    applied += rows.length
    after = rows[rows.length - 1]!.r
  }
  return applied
}

/** The projection tables' rows, in a stable order, for comparing a replayed database with a live one. */
export const projectionSnapshot = (client: SQLite) => {
  const tables = {
    session: "SELECT * FROM session ORDER BY id",
    session_message: "SELECT * FROM session_message ORDER BY session_id, seq",
    session_execution: "SELECT * FROM session_execution ORDER BY session_id",
    session_inbox: "SELECT * FROM session_inbox ORDER BY session_id, seq",
    event_sequence: "SELECT * FROM event_sequence ORDER BY aggregate_id",
  }
  return Object.fromEntries(Object.entries(tables).map(([name, sql]) => [name, client.query(sql).all()]))
}
