import { Database as SQLite } from "bun:sqlite"
import { createHash } from "node:crypto"

/**
 * A hash over every row of every table (order-independent), to see whether a request changed anything.
 * One read-only connection; each call is its own read transaction, so it sees every committed write.
 */
export const tableHasher = (path: string) => {
  const db = new SQLite(path, { readonly: true })
  db.run("PRAGMA busy_timeout = 5000")
  const hex = (_: string, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString("hex") : value)
  return {
    hash() {
      const tables = db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((row) => row.name)
      const hash = createHash("sha256")
      db.transaction(() => {
        for (const table of tables) {
          const rows = db
            .query<Record<string, unknown>, []>(`SELECT * FROM "${table.replaceAll('"', '""')}"`)
            .all()
            .map((row) => JSON.stringify(row, hex))
            .sort()
          hash.update(`${table}\n${rows.join("\n")}\n`)
        }
      })()
      return hash.digest("hex")
    },
    /** Changes whenever another connection commits (cheap; checked after every request). */
    version: () => db.query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version,
    close: () => db.close(),
  }
}
