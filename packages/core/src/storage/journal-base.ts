import type { SqliteClient as SQLite } from "../platform/sqlite.ts"

/**
 * A session's projection rows, the snapshot a compacted journal starts from (docs/storage.md): the rows of
 * every projection table that belong to the session, column by column, as SQLite holds them. Restoring
 * them into an empty projection gives exactly the session as it was at the snapshot's seq.
 */
export type ProjectionSnapshot = Record<string, ReadonlyArray<Record<string, unknown>>>

/** The projection tables and the column naming the session, in an order that satisfies foreign keys. */
const TABLES: ReadonlyArray<readonly [table: string, column: string]> = [
  ["session", "id"],
  ["session_message", "session_id"],
  ["session_execution", "session_id"],
  ["session_inbox", "session_id"],
  ["session_permission", "session_id"],
  ["session_question", "session_id"],
  ["session_todo", "session_id"],
]

/** The session's rows of every projection table. */
export const captureSnapshot = (client: SQLite, sessionID: string): ProjectionSnapshot =>
  Object.fromEntries(
    TABLES.map(([table, column]) => [
      table,
      client.query<Record<string, unknown>, [string]>(`SELECT * FROM ${table} WHERE ${column} = ?`).all(sessionID),
    ]),
  )

/** Writes a snapshot's rows into `client`'s projection (replacing any the session had). */
export const restoreSnapshot = (client: SQLite, snapshot: ProjectionSnapshot) => {
  for (const [table] of TABLES) {
    for (const row of snapshot[table] ?? []) {
      const columns = Object.keys(row)
      client
        .query(`INSERT OR REPLACE INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
        .run(...(columns.map((c) => row[c]) as Array<any>))
    }
  }
}

/**
 * After an erase of a session whose journal was compacted: its snapshot may still hold content the
 * session has superseded since (corrected, pruned), so the snapshot is taken again from the projection as
 * it is now and the journal up to now is dropped; replay still gives the same projection. A deleted
 * session's snapshot goes whole. Returns whether the session had a base. Runs inside the caller's
 * transaction.
 */
export const rebaseAfterErase = (client: SQLite, sessionID: string, time: number): boolean => {
  const base = client
    .query<{ seq: number }, [string]>("SELECT seq FROM journal_base WHERE session_id = ?")
    .get(sessionID)
  if (!base) return false
  const row = client.query<{ seq: number }, [string]>("SELECT seq FROM session WHERE id = ?").get(sessionID)
  if (!row) {
    client.query("DELETE FROM journal_base WHERE session_id = ?").run(sessionID)
    return true
  }
  client
    .query("UPDATE journal_base SET seq = ?, time = ?, snapshot = ? WHERE session_id = ?")
    .run(row.seq, time, JSON.stringify(captureSnapshot(client, sessionID)), sessionID)
  client.query("DELETE FROM event WHERE aggregate_id = ? AND seq <= ?").run(sessionID, row.seq)
  return true
}
