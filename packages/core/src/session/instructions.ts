import { Effect } from "effect"
import { constants } from "node:fs"
import { open, realpath } from "node:fs/promises"
import { isAbsolute, join, relative } from "node:path"

/**
 * Instruction files (`AGENTS.md` and whatever `instructions` in config names) become system parts. They
 * are project content, so they get the same confinement as a tool: only a regular file whose realpath is
 * inside the session directory's realpath is read, at most `INSTRUCTIONS_MAX_BYTES` of it, and only
 * asynchronously, so a symlink out of the project, a named pipe or a device can neither leak nor block.
 */

/** The most an instruction file contributes (256 KiB); past it the text ends with `INSTRUCTIONS_TRUNCATED`. */
export const INSTRUCTIONS_MAX_BYTES = 256 * 1024

/** Appended to an instruction file cut at `INSTRUCTIONS_MAX_BYTES`. */
export const INSTRUCTIONS_TRUNCATED = `\n[instruction file truncated at ${INSTRUCTIONS_MAX_BYTES / 1024} KiB]`

/** One instruction file's text, by the name config gave it. */
export interface Instruction {
  readonly file: string
  readonly text: string
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path)
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)
}

/** Reads one file, or `undefined` when it is missing, outside, not a regular file, or unreadable. */
const readOne = async (root: string, file: string): Promise<string | undefined> => {
  const real = await realpath(isAbsolute(file) ? file : join(root, file)).catch(() => undefined)
  if (!real || !inside(root, real)) return undefined
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
    return stat.size > INSTRUCTIONS_MAX_BYTES ? text + INSTRUCTIONS_TRUNCATED : text
  } finally {
    await handle.close()
  }
}

/** The instruction files of a session directory that may be sent, in config order; the rest are skipped. */
export const readInstructions = (directory: string, files: ReadonlyArray<string>): Effect.Effect<Array<Instruction>> =>
  Effect.promise(async () => {
    const root = await realpath(directory).catch(() => undefined)
    if (!root) return []
    const texts = await Promise.all(files.map((file) => readOne(root, file).catch(() => undefined)))
    return files.flatMap((file, i) => (texts[i]?.trim() ? [{ file, text: texts[i]! }] : []))
  })
