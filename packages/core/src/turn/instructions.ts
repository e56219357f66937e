import { Effect } from "effect"
import { constants, realpathSync, statSync, type Stats } from "node:fs"
import { open } from "node:fs/promises"
import { isAbsolute, join, relative } from "node:path"

/**
 * Instruction files (`AGENTS.md` and whatever `instructions` in config names) become system parts. They
 * are project content, so they get the same confinement as a tool: only a regular file whose realpath is
 * inside the session directory's realpath is read, at most `INSTRUCTIONS_MAX_BYTES` of it, and the read
 * itself is asynchronous, so a symlink out of the project, a named pipe or a device can neither leak nor
 * block. Every model request consults them, so the reader remembers each file's text by identity and
 * re-reads only a file that changed.
 */

/** The most an instruction file contributes (256 KiB); past it the text ends with `INSTRUCTIONS_TRUNCATED`. */
export const INSTRUCTIONS_MAX_BYTES = 256 * 1024

/** Appended to an instruction file cut at `INSTRUCTIONS_MAX_BYTES`. */
export const INSTRUCTIONS_TRUNCATED = `\n[instruction file truncated at ${INSTRUCTIONS_MAX_BYTES / 1024} KiB]`

/** How many files' texts a reader keeps (at most 256 KiB each). */
const REMEMBERED_FILES = 32

/** How many canonical session directories a reader trusts without resolving them again. */
const REMEMBERED_DIRECTORIES = 256

/** One instruction file's text, by the name config gave it. */
export interface Instruction {
  readonly file: string
  readonly text: string
}

/** What a file's text was read from: the same inode, unchanged since, has the same text. */
interface Identity {
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
}

interface Remembered extends Identity {
  readonly text: string
}

const identity = (stat: Stats): Identity => ({
  dev: stat.dev,
  ino: stat.ino,
  size: stat.size,
  mtimeMs: stat.mtimeMs,
  ctimeMs: stat.ctimeMs,
})

const sameIdentity = (a: Identity, b: Identity) =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs

const inside = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)
}

const realpathOf = (path: string) => {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/** Reads an already confined path asynchronously, or `undefined` when it is not a regular file or unreadable. */
const readConfined = async (real: string): Promise<Remembered | undefined> => {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the resolved path is what we read.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(
    () => undefined,
  )
  if (!handle) return undefined
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return undefined
    const limit = Math.min(stat.size, INSTRUCTIONS_MAX_BYTES)
    const buffer = Buffer.alloc(limit)
    let filled = 0
    while (filled < limit) {
      const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    const text = buffer.subarray(0, filled).toString("utf8")
    return { ...identity(stat), text: stat.size > INSTRUCTIONS_MAX_BYTES ? text + INSTRUCTIONS_TRUNCATED : text }
  } finally {
    await handle.close()
  }
}

/** Reads a session directory's instruction files, remembering unchanged ones between requests. */
export interface InstructionReader {
  /** The instruction files of `directory` that may be sent, in config order; the rest are skipped. */
  read(directory: string, files: ReadonlyArray<string>): Effect.Effect<Array<Instruction>>
}

/**
 * A reader with its own memory of file texts. Locating a file (stat, realpath) is metadata only and
 * never waits on a pipe's writer, so it runs inline; opening and reading, the part that could block, stay
 * asynchronous and happen only for a file whose identity (device, inode, size, modification and change
 * time) differs from the remembered one.
 */
export const makeInstructionReader = (): InstructionReader => {
  const remembered = new Map<string, Remembered>()
  // Directories already in canonical form (the server stores a session's directory as its realpath).
  // Trusting one later is safe: if a component is swapped for a symlink, files resolve outside the
  // remembered root and are skipped, never read from elsewhere.
  const canonical = new Set<string>()

  const rootOf = (directory: string) => {
    if (canonical.has(directory)) return directory
    const real = realpathOf(directory)
    if (real === directory) {
      if (canonical.size >= REMEMBERED_DIRECTORIES) canonical.delete(canonical.values().next().value!)
      canonical.add(directory)
    }
    return real
  }

  const remember = (real: string, entry: Remembered) => {
    remembered.delete(real)
    remembered.set(real, entry)
    if (remembered.size > REMEMBERED_FILES) remembered.delete(remembered.keys().next().value!)
  }

  /**
   * Where one file stands: its remembered text, the confined realpath still to read, or nothing when it
   * is missing, outside the directory or not a regular file.
   */
  const locate = (root: string, file: string): { text: string } | { read: string } | undefined => {
    const path = isAbsolute(file) ? file : join(root, file)
    const stat = statSync(path, { throwIfNoEntry: false })
    if (!stat?.isFile()) return undefined
    const real = realpathOf(path)
    if (!real || !inside(root, real)) return undefined
    const known = remembered.get(real)
    return known && sameIdentity(known, identity(stat)) ? { text: known.text } : { read: real }
  }

  const readFresh = async (real: string) => {
    const fresh = await readConfined(real).catch(() => undefined)
    if (fresh) remember(real, fresh)
    else remembered.delete(real)
    return fresh?.text
  }

  const collect = (files: ReadonlyArray<string>, texts: ReadonlyArray<string | undefined>) =>
    files.flatMap((file, i) => (texts[i]?.trim() ? [{ file, text: texts[i]! }] : []))

  return {
    read: (directory, files) =>
      Effect.suspend(() => {
        const root = rootOf(directory)
        if (!root) return Effect.succeed([])
        const located = files.map((file) => {
          try {
            return locate(root, file)
          } catch {
            return undefined
          }
        })
        // Unchanged files answer from memory without a trip through the thread pool.
        if (!located.some((entry) => entry && "read" in entry))
          return Effect.succeed(
            collect(
              files,
              located.map((entry) => (entry && "text" in entry ? entry.text : undefined)),
            ),
          )
        return Effect.promise(async () =>
          collect(
            files,
            await Promise.all(
              located.map((entry) =>
                entry === undefined ? undefined : "text" in entry ? entry.text : readFresh(entry.read),
              ),
            ),
          ),
        )
      }),
  }
}
