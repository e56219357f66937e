import { existsSync, readFileSync } from "node:fs"

/** Occurrences of `secret` in the bytes of a database file and its WAL and SHM companions. */
export const countInDatabaseFiles = (path: string, secret: string) => {
  let count = 0
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue
    const bytes = readFileSync(file)
    for (let at = bytes.indexOf(secret); at !== -1; at = bytes.indexOf(secret, at + 1)) count++
  }
  return count
}
