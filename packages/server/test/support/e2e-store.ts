/**
 * Looking at a server's SQLite file from the outside, read-only, the way an operator would: table
 * snapshots (to prove a rejected operation changed nothing), row sizes (to prove a removal reclaimed
 * bytes), and a rebuild of the projection from the journal (to prove replay equals live).
 */
import { Database, projectionSnapshot, replay } from "@opencode-ai/core"
import { makeSessionProjector } from "@opencode-ai/core/session/projector"
import { Database as SQLite } from "bun:sqlite"

/** Opens the file read-only for the duration of `fn`. */
export const readOnly = <A>(path: string, fn: (db: SQLite) => A): A => {
  const db = new SQLite(path, { readonly: true, strict: true })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

/** Every row of the journal and of the projection tables, in a stable order. */
export const storeSnapshot = (path: string) =>
  readOnly(path, (db) => ({
    event: db.query("SELECT * FROM event ORDER BY position").all(),
    ...projectionSnapshot(db),
  }))

/** The stored size of one message row: `length(data)` (characters) and its UTF-8 byte length. */
export const messageRowSize = (path: string, messageID: string) =>
  readOnly(path, (db) => {
    const row = db
      .query<{ chars: number; bytes: number }, [string]>(
        "SELECT length(data) AS chars, length(CAST(data AS BLOB)) AS bytes FROM session_message WHERE id = ?",
      )
      .get(messageID)
    if (!row) throw new Error(`no session_message row ${messageID}`)
    return row
  })

/** The journal rows of one session, in commit order. */
export const journalOf = (path: string, sessionID: string) =>
  readOnly(path, (db) =>
    db
      .query<{ seq: number; type: string; data: string }, [string]>(
        "SELECT seq, type, data FROM event WHERE aggregate_id = ? ORDER BY seq",
      )
      .all(sessionID),
  )

/**
 * Rebuilds the projection by replaying the file's journal into `Database.open(":memory:")` with the
 * host's own projector, and returns both the live rows and the rebuilt rows.
 */
export const replayFromJournal = (path: string) =>
  readOnly(path, (live) => {
    const target = Database.open(":memory:")
    try {
      const applied = replay(live, target, makeSessionProjector(target.client))
      return { applied, live: projectionSnapshot(live), replayed: projectionSnapshot(target.client) }
    } finally {
      target.client.close()
    }
  })
