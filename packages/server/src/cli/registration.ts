/**
 * A running `opencode2 serve` announces itself beside its database file (`<db>.server.json`: URL and pid),
 * so other CLI processes working on the same file (`session prune`, `db erase`, `run`...) send their
 * operations through that server instead of changing rows behind its back: the server commits them, so
 * its admission rules apply and its live subscribers hear every event at once. A registration left by a
 * killed server is recognised (the pid is gone, or the URL does not answer) and ignored.
 */
import { createHash } from "node:crypto"
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs"

export interface Registration {
  readonly url: string
  readonly pid: number
  /** The database file's real path, as the server resolved it. */
  readonly database: string
  /** The directory the server was started in (older registrations lack it). */
  readonly directory?: string
  /** The config file the server loaded, and a digest of its text then; absent when it loaded none. */
  readonly config?: ConfigIdentity
}

/** Which config file, with what content: two processes with equal identities run with the same config. */
export interface ConfigIdentity {
  readonly path: string
  readonly sha256: string
}

/** The identity of the config file at `path` as it is now (nothing without a file, or when it is unreadable). */
export const configIdentity = (path: string | undefined): ConfigIdentity | undefined => {
  if (path === undefined) return undefined
  try {
    return { path: realpathSync(path), sha256: createHash("sha256").update(readFileSync(path)).digest("hex") }
  } catch {
    return undefined
  }
}

/** The registration file of a database file, or nothing for `:memory:` and files that do not exist. */
export const registrationPath = (database: string): string | undefined => {
  if (database === ":memory:" || !existsSync(database)) return undefined
  return `${realpathSync(database)}.server.json`
}

/** Announces a server for `database`; the returned function withdraws it (only if it is still ours). */
export const register = (
  database: string,
  url: string,
  started: { readonly directory: string; readonly config?: ConfigIdentity } = { directory: process.cwd() },
): (() => void) => {
  const path = registrationPath(database)
  if (!path) return () => {}
  const registration: Registration = {
    url,
    pid: process.pid,
    database: realpathSync(database),
    directory: started.directory,
    ...(started.config ? { config: started.config } : {}),
  }
  // Written whole and renamed into place, so a reader never sees half a file.
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify(registration))
  renameSync(temporary, path)
  return () => {
    if (read(path)?.pid === process.pid) rmSync(path, { force: true })
  }
}

const read = (path: string): Registration | undefined => {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<Registration>
    return typeof value.url === "string" && typeof value.pid === "number" && typeof value.database === "string"
      ? (value as Registration)
      : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    // EPERM: the process exists but belongs to someone else.
    return (cause as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * The server registered for `database`, if one is running: its pid is alive and its health route
 * answers (any HTTP response counts, including 401 from a server with a password) within `timeoutMs`.
 */
export const findRunning = async (database: string, timeoutMs = 1_000): Promise<Registration | undefined> => {
  const path = registrationPath(database)
  const registration = path ? read(path) : undefined
  if (!registration || registration.pid === process.pid || !alive(registration.pid)) return undefined
  try {
    await fetch(`${registration.url}/api/health`, { signal: AbortSignal.timeout(timeoutMs) })
    return registration
  } catch {
    return undefined
  }
}
