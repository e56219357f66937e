import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { blobRef } from "../storage/blobs.ts"
import { isInside, outsideError } from "./path.ts"
import { type BeforeImages, type FileRecord, PathOutsideDirectoryError, ToolError } from "./tool.ts"

/** Files larger than this are not edited (the whole text is held in memory twice while editing). */
export const EDIT_MAX_BYTES = 32 * 1024 * 1024

const errnoCode = (error: unknown) => (error as { code?: string } | undefined)?.code

/**
 * Reads a regular text file for editing, asynchronously. `undefined` when it does not exist. Refuses
 * directories, special files (a FIFO would block: checked before opening), binary files (a NUL in the
 * first 8 KiB) and files over {@link EDIT_MAX_BYTES}.
 *
 * `file` is a resolved, symlink-free path, so its last component is never followed: a symlink found
 * there now was put in after the path was resolved, and is refused rather than read through.
 */
export const readTextFile = async (tool: string, file: string, shown: string): Promise<string | undefined> => {
  let stat: import("node:fs").Stats
  try {
    stat = await fs.lstat(file)
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return undefined
    throw error
  }
  if (stat.isDirectory()) throw new ToolError({ tool, message: `"${shown}" is a directory, not a file` })
  if (stat.isSymbolicLink())
    throw new ToolError({ tool, message: `"${shown}" is now a symbolic link; refusing to follow it` })
  if (!stat.isFile()) throw new ToolError({ tool, message: `"${shown}" is not a regular file` })
  // O_NOFOLLOW and a second check on the opened file close the gap between the lstat and the open
  // (O_NONBLOCK keeps a FIFO swapped in meanwhile from blocking the open).
  const handle = await fs
    .open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    .catch((error) => {
      if (errnoCode(error) === "ELOOP")
        throw new ToolError({ tool, message: `"${shown}" is now a symbolic link; refusing to follow it` })
      throw error
    })
  try {
    const opened = await handle.stat()
    if (!opened.isFile()) throw new ToolError({ tool, message: `"${shown}" is not a regular file` })
    if (opened.size > EDIT_MAX_BYTES) {
      throw new ToolError({
        tool,
        message: `"${shown}" is ${opened.size} bytes; files over ${EDIT_MAX_BYTES} bytes are not edited`,
      })
    }
    const text = await handle.readFile("utf8")
    if (text.slice(0, 8192).includes("\u0000")) {
      throw new ToolError({ tool, message: `"${shown}" looks like a binary file; refusing to edit it` })
    }
    return text
  } finally {
    await handle.close()
  }
}

/**
 * Identifies a file's current state without reading it: inode, size, and modification/change times in
 * nanoseconds; `"missing"` when it does not exist. The last component is not followed (see
 * {@link readTextFile}): a symlink swapped in has its own inode, so it never passes for the file.
 */
export const fingerprint = async (file: string): Promise<string> => {
  try {
    const stat = await fs.lstat(file, { bigint: true })
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return "missing"
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
  /** Absolute, symlink-free path inside the session directory (confined when planned and re-confirmed). */
  readonly path: string
  /** The path as the call spelled it: named by the confinement error. */
  readonly requested: string
  /** Shown in errors. */
  readonly shown: string
  readonly after: string | undefined
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Fails with the confinement error unless directory `dir` really is inside `root` at this moment. Called
 * right before every mkdir, temporary write, rename and delete: whatever replaced a parent with a symlink
 * leading out since the path was resolved is caught here, before anything is written through it.
 */
const checkParent = async (tool: string, root: string, dir: string, change: FileChange) => {
  if (!isInside(root, await fs.realpath(dir))) throw outsideError(tool, change.requested, "changed")
}

/**
 * Creates the missing directories above a change one at a time (never `mkdir -p`, which would follow a
 * link anywhere on the way), each only after its parent's real path was checked. `mkdir` itself does not
 * follow a symlink in the place of the directory it creates. Created directories are added to `created`.
 */
const makeParents = async (tool: string, root: string, dir: string, change: FileChange, created: Array<string>) => {
  const missing: Array<string> = []
  for (let at = dir; ; at = nodePath.dirname(at)) {
    const exists = await fs.lstat(at).then(
      () => true,
      (error) => (errnoCode(error) === "ENOENT" ? false : Promise.reject(error)),
    )
    if (exists || at === nodePath.dirname(at)) break
    missing.push(at)
  }
  for (const next of missing.reverse()) {
    await checkParent(tool, root, nodePath.dirname(next), change)
    await fs.mkdir(next)
    created.push(next)
  }
}

/** The permission bits of the regular file at `file` (not followed), to keep them on its replacement. */
const modeOf = async (file: string): Promise<number | undefined> => {
  const stat = await fs
    .lstat(file)
    .catch((error) => (errnoCode(error) === "ENOENT" ? undefined : Promise.reject(error)))
  return stat?.isFile() ? stat.mode & 0o7777 : undefined
}

/**
 * Writes `content` to a new temporary sibling of `change.path` and returns its path. The parent is
 * checked first; the file is opened with O_CREAT|O_EXCL|O_NOFOLLOW, so nothing that appeared under that
 * name (a symlink included) is ever written through.
 */
const stage = async (tool: string, root: string, change: FileChange, content: string, mode: number | undefined) => {
  const dir = nodePath.dirname(change.path)
  const temp = nodePath.join(dir, `.${nodePath.basename(change.path)}.${randomBytes(6).toString("hex")}.tmp`)
  await checkParent(tool, root, dir, change)
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
  const handle = await fs.open(temp, flags, mode ?? 0o666)
  try {
    await handle.writeFile(content)
  } catch (error) {
    await handle.close()
    await fs.unlink(temp).catch(() => undefined)
    throw error
  }
  await handle.close()
  return temp
}

/** Moves a staged file over its target, or deletes the target: the parent is checked right before. */
const settle = async (tool: string, root: string, change: FileChange, temp: string | undefined) => {
  await checkParent(tool, root, nodePath.dirname(change.path), change)
  // Neither rename nor unlink follows a symlink in the last component: at worst such a link is replaced.
  if (temp !== undefined) await fs.rename(temp, change.path)
  else await fs.unlink(change.path)
}

/** Best effort: puts back what a change replaced, the same confined way it was written. */
const restore = async (tool: string, root: string, change: FileChange, before: string | undefined) => {
  if (before === undefined) {
    await settle(tool, root, change, undefined)
    return
  }
  const temp = await stage(tool, root, change, before, await modeOf(change.path))
  try {
    await settle(tool, root, change, temp)
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined)
    throw error
  }
}

/**
 * Applies changes to several files all-or-nothing (temporary siblings, then renames), re-checking
 * confinement against `root` at every step. (docs/architecture.md, "Multi-file writes are all-or-nothing")
 */
export const writeFiles = async (
  tool: string,
  root: string,
  changes: ReadonlyArray<FileChange>,
  previous: ReadonlyMap<string, string | undefined>,
) => {
  const staged: Array<{ change: FileChange; temp?: string }> = []
  const createdDirs: Array<string> = []
  const dropStaged = (from = 0) =>
    Promise.all(staged.slice(from).map((s) => (s.temp ? fs.unlink(s.temp).catch(() => undefined) : undefined)))
  try {
    for (const change of changes) {
      if (change.after === undefined) {
        // Checked now as well, so that a parent leading outside fails the call before the first rename.
        await checkParent(tool, root, nodePath.dirname(change.path), change)
        staged.push({ change })
        continue
      }
      await makeParents(tool, root, nodePath.dirname(change.path), change, createdDirs)
      staged.push({ change, temp: await stage(tool, root, change, change.after, await modeOf(change.path)) })
    }
  } catch (error) {
    await dropStaged()
    // Only directories created here, deepest first, and only while empty (rmdir follows no link).
    for (const dir of createdDirs.reverse()) await fs.rmdir(dir).catch(() => undefined)
    if (error instanceof PathOutsideDirectoryError) throw error
    throw new ToolError({ tool, message: `nothing was changed: cannot write: ${describe(error)}` })
  }
  const done: Array<FileChange> = []
  try {
    for (const { change, temp } of staged) {
      await settle(tool, root, change, temp)
      done.push(change)
    }
  } catch (error) {
    // Put back what was already replaced, then drop the remaining temporaries.
    for (const change of done) await restore(tool, root, change, previous.get(change.path)).catch(() => undefined)
    await dropStaged(done.length)
    if (error instanceof PathOutsideDirectoryError) throw error
    throw new ToolError({
      tool,
      message: `nothing was changed: cannot write "${staged[done.length]?.change.shown}": ${describe(error)}`,
    })
  }
}

/** A change as a file-changing tool applies it: what the file held when planned, and its fingerprint then. */
export interface RecordedChange extends FileChange {
  readonly before: string | undefined
  readonly print: string
  /** `after`'s reference, when the tool started computing it as it planned the change (`refAhead`). */
  readonly afterRef?: Promise<string>
}

/** `after`'s reference started off the JavaScript thread, when the store can (see `BeforeImages.refAhead`). */
export const refAhead = (
  images: BeforeImages | undefined,
  after: string | undefined,
): { readonly afterRef?: Promise<string> } => {
  if (images?.refAhead === undefined || after === undefined) return {}
  const afterRef = images.refAhead(after)
  // Awaited only if the change is written; a call refused meanwhile leaves it unread.
  afterRef.catch(() => undefined)
  return { afterRef }
}

/**
 * Writes changes all-or-nothing (`writeFiles`) after storing the before-image of each, and answers their
 * records (for `metadata.files`): a change is recorded before it happens, so no change is made without
 * what undoing it needs. A file this host wrote last and nobody touched since is not hashed again (its
 * reference is recalled by fingerprint, the same trust `unchanged` puts in it). Without a store nothing
 * is recorded and the answer is `undefined`.
 */
export const writeRecorded = async (
  tool: string,
  root: string,
  images: BeforeImages | undefined,
  changes: ReadonlyArray<RecordedChange>,
): Promise<ReadonlyArray<FileRecord> | undefined> => {
  if (images === undefined) {
    await writeFiles(tool, root, changes, new Map(changes.map((change) => [change.path, change.before])))
    return undefined
  }
  const befores: Array<string | null> = []
  for (const change of changes) {
    befores.push(
      change.before === undefined ? null : await images.put(change.before, images.recall?.(change.path, change.print)),
    )
  }
  await writeFiles(tool, root, changes, new Map(changes.map((change) => [change.path, change.before])))
  const afters = await Promise.all(
    changes.map((change) => (change.after === undefined ? null : (change.afterRef ?? blobRef(change.after)))),
  )
  const records = changes.map((change, index) => ({
    path: change.shown,
    before: befores[index]!,
    after: afters[index]!,
  }))
  if (images.remember)
    for (const [index, change] of changes.entries())
      images.remember(change.path, await fingerprint(change.path), records[index]!.after)
  return records
}
