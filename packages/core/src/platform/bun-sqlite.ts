import type { Checkpointer, SqliteShape } from "./sqlite-shape.ts"
import { requireBun } from "./bun-runtime.ts"

// Not a static import: this module is also loaded on runtimes without `bun:sqlite` (where another driver
// is provided and this one never opens anything), and a static import would fail there at load time.
const BUN_SQLITE = "bun:sqlite"

/**
 * WAL checkpoints on another thread. A checkpoint copies the WAL's pages into the database file and syncs
 * it; on a busy disk that takes tens of milliseconds or more, and bun:sqlite runs it on the thread of the
 * commit that crossed `wal_autocheckpoint`, so every request waits. A long write-heavy job (retention)
 * turns automatic checkpoints off on the host's connection and asks this worker, which has its own
 * connection, to checkpoint instead (PASSIVE: it never blocks the host's readers or writers).
 */
const WORKER = `import { Database } from "bun:sqlite"
self.onmessage = (event) => {
  let db
  try {
    db = new Database(event.data, { readwrite: true, create: false })
    db.run("PRAGMA busy_timeout = 5000")
    postMessage(db.query("PRAGMA wal_checkpoint(PASSIVE)").get())
  } catch (cause) {
    postMessage({ error: String(cause) })
  } finally {
    db?.close()
  }
}`

const offThreadCheckpointer = (path: string): Checkpointer => {
  const url = URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" }))
  const worker = new Worker(url)
  let running: Promise<void> | undefined
  return {
    request() {
      running ??= new Promise<void>((resolve) => {
        worker.onmessage = () => {
          running = undefined
          resolve()
        }
        worker.onerror = () => {
          running = undefined
          resolve()
        }
        worker.postMessage(path)
      })
      return running
    },
    close() {
      worker.terminate()
      URL.revokeObjectURL(url)
    },
  }
}

/** `bun:sqlite`: native, WAL, shared by every process that opens the same file. */
export const bunSqlite = (): SqliteShape => ({
  runtime: "bun",
  open: (path) => {
    requireBun("Sqlite")
    const { Database } = process.getBuiltinModule(BUN_SQLITE) as typeof import("bun:sqlite")
    const client = new Database(path, { create: true, strict: true })
    return { client, immediate: (fn) => client.transaction(fn).immediate() }
  },
  checkpointer: offThreadCheckpointer,
})
