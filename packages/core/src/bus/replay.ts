import type { SqliteClient as SQLite } from "../platform/sqlite.ts"
import type { DatabaseShape } from "../storage/database.ts"
import { decode } from "./bus.ts"
import type { Durable, Envelope } from "./event.ts"
import { journalReader } from "./journal.ts"
import type { ProjectorSet } from "./projector.ts"
import { restoreSnapshot } from "../storage/journal-base.ts"

/**
 * Rebuilds the projection from a journal into an empty database: first the snapshot of every session whose
 * journal retention compacted (`journal_base`: its projection rows at a seq), then every journaled event
 * in commit order, decoded against its declaration and applied by the same projectors as live commits, in
 * batches of IMMEDIATE transactions; an event at or below its session's base seq is already in the
 * snapshot and skipped. Returns the number of events applied. The journal itself is not copied.
 */
export const replay = (source: SQLite, target: DatabaseShape, projectors: ProjectorSet, batch = 5_000): number => {
  const definitions = new Map<string, Durable>(projectors.definitions.map((d) => [`${d.type}@${d.version}`, d]))
  const journal = journalReader(source)
  const bases = new Map<string, number>()
  target.immediate(() => {
    for (const row of source
      .query<{ session_id: string; seq: number; snapshot: string }, []>(
        "SELECT session_id, seq, snapshot FROM journal_base",
      )
      .iterate()) {
      bases.set(row.session_id, row.seq)
      restoreSnapshot(target.client, JSON.parse(row.snapshot))
    }
  })
  let after = 0
  let applied = 0
  for (;;) {
    const rows = journal.afterPosition(after, batch)
    if (rows.length === 0) break
    target.immediate(() => {
      for (const row of rows) {
        if (row.seq <= (bases.get(row.aggregate_id) ?? 0)) continue
        const definition = definitions.get(`${row.type}@${row.version}`)
        if (!definition) throw new Error(`replay: unknown event ${row.type}@${row.version} (seq ${row.seq})`)
        const envelope: Envelope = {
          id: row.id,
          type: row.type,
          version: row.version,
          sessionID: row.aggregate_id,
          seq: row.seq,
          time: row.time,
          data: decode(definition, JSON.parse(row.data)),
        }
        projectors.project(envelope)
      }
    })
    applied += rows.length
    after = rows[rows.length - 1]!.position
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
    session_permission: "SELECT * FROM session_permission ORDER BY session_id, seq",
    session_question: "SELECT * FROM session_question ORDER BY session_id, seq",
    session_todo: "SELECT * FROM session_todo ORDER BY session_id",
  }
  return Object.fromEntries(Object.entries(tables).map(([name, sql]) => [name, client.query(sql).all()]))
}
