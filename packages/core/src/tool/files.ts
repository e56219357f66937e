import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { ToolError } from "./tool.ts"

/** Files larger than this are not edited (the whole text is held in memory twice while editing). */
export const EDIT_MAX_BYTES = 32 * 1024 * 1024

/**
 * Reads a regular text file for editing, asynchronously. `undefined` when it does not exist. Refuses
 * directories, special files (a FIFO would block: checked before opening), binary files (a NUL in the
 * first 8 KiB) and files over {@link EDIT_MAX_BYTES}.
 */
export const readTextFile = async (tool: string, file: string, shown: string): Promise<string | undefined> => {
  let stat: import("node:fs").Stats
  try {
    stat = await fs.stat(file)
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined
    throw error
  }
  if (stat.isDirectory()) throw new ToolError({ tool, message: `"${shown}" is a directory, not a file` })
  if (!stat.isFile()) throw new ToolError({ tool, message: `"${shown}" is not a regular file` })
  if (stat.size > EDIT_MAX_BYTES) {
    throw new ToolError({
      tool,
      message: `"${shown}" is ${stat.size} bytes; files over ${EDIT_MAX_BYTES} bytes are not edited`,
    })
  }
  // Checked to be a regular file above; read with the runtime's fast path (decoded natively).
  const text = await fs.readFile(file, "utf8")
  if (text.slice(0, 8192).includes("\u0000")) {
    throw new ToolError({ tool, message: `"${shown}" looks like a binary file; refusing to edit it` })
  }
  return text
}

/**
 * Identifies a file's current state without reading it: inode, size, and modification/change times in
 * nanoseconds; `"missing"` when it does not exist.
 */
export const fingerprint = async (file: string): Promise<string> => {
  try {
    const stat = await fs.stat(file, { bigint: true })
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return "missing"
    throw error
  }
}

/**
 * Whether a file still holds `before` (what a plan was computed from): its fingerprint is unchanged, or
 * (something touched it) its content is still the same.
 */
export const unchanged = async (tool: string, file: string, shown: string, print: string, before: string | undefined) =>
  (await fingerprint(file)) === print || (await readTextFile(tool, file, shown)) === before

/** One file change of an all-or-nothing write: new content, or `undefined` to delete the file. */
export interface FileChange {
  /** Absolute path inside the session directory (already confined). */
  readonly path: string
  /** Shown in errors. */
  readonly shown: string
  readonly after: string | undefined
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Applies changes to several files all-or-nothing: every new content is first written to a temporary
 * sibling (missing parent directories are created), and only when all of them are on disk are they
 * renamed over their targets. If anything fails before the renames nothing changed; if a rename fails,
 * the files already replaced get their previous content back. Modes of replaced files are kept.
 */
export const writeFiles = async (
  tool: string,
  changes: ReadonlyArray<FileChange>,
  previous: ReadonlyMap<string, string | undefined>,
) => {
  const staged: Array<{ change: FileChange; temp?: string }> = []
  const createdDirs: Array<string> = []
  try {
    for (const change of changes) {
      if (change.after === undefined) {
        staged.push({ change })
        continue
      }
      const dir = nodePath.dirname(change.path)
      const made = await fs.mkdir(dir, { recursive: true })
      if (made !== undefined) createdDirs.push(made)
      const temp = nodePath.join(dir, `.${nodePath.basename(change.path)}.${randomBytes(6).toString("hex")}.tmp`)
      let mode: number | undefined
      try {
        mode = (await fs.stat(change.path)).mode & 0o7777
      } catch {
        mode = undefined
      }
      await fs.writeFile(temp, change.after, { flag: "wx", ...(mode !== undefined ? { mode } : {}) })
      staged.push({ change, temp })
    }
  } catch (error) {
    await Promise.all(staged.map((s) => (s.temp ? fs.rm(s.temp, { force: true }) : undefined)))
    for (const dir of createdDirs.reverse()) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined)
    throw new ToolError({ tool, message: `nothing was changed: cannot write: ${describe(error)}` })
  }
  const done: Array<FileChange> = []
  try {
    for (const { change, temp } of staged) {
      if (temp) await fs.rename(temp, change.path)
      else await fs.rm(change.path)
      done.push(change)
    }
  } catch (error) {
    // Put back what was already replaced, then drop the remaining temporaries.
    for (const change of done) {
      const before = previous.get(change.path)
      if (before === undefined) await fs.rm(change.path, { force: true }).catch(() => undefined)
      else await fs.writeFile(change.path, before).catch(() => undefined)
    }
    await Promise.all(staged.map((s) => (s.temp ? fs.rm(s.temp, { force: true }) : undefined)))
    throw new ToolError({
      tool,
      message: `nothing was changed: cannot write "${staged[done.length]?.change.shown}": ${describe(error)}`,
    })
  }
}
