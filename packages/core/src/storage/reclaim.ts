import type { DatabaseShape } from "./database.ts"

/**
 * Gives space freed by deletions back to the file system. `incremental` moves free pages to the end of
 * the file and truncates them (cheap, no full rewrite); `full` rebuilds every page with `VACUUM`, which
 * also drops old bytes left inside partly used pages. Both then checkpoint the WAL with TRUNCATE so no
 * old frame survives in the `-wal` file.
 */
export const reclaim = (database: DatabaseShape, mode: "incremental" | "full") => {
  const { client } = database
  if (database.path === ":memory:") return
  client.run("PRAGMA wal_checkpoint(TRUNCATE)")
  if (mode === "full") {
    // VACUUM copies every page through the page cache (twice); with the normal cache that costs far
    // more memory than the copy needs, so it runs with a small cache.
    const { cache_size } = client.query("PRAGMA cache_size").get() as { cache_size: number }
    client.run("PRAGMA cache_size = -2000")
    try {
      client.run("VACUUM")
    } finally {
      client.run(`PRAGMA cache_size = ${cache_size}`)
    }
  } else client.query("PRAGMA incremental_vacuum").all()
  client.run("PRAGMA wal_checkpoint(TRUNCATE)")
}
