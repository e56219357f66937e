import * as fs from "node:fs/promises"
import { Effect, Schema } from "effect"
import { displayPath, resolveInsideWithRoot } from "./path.ts"
import { ToolError, type Tool, type ToolContext } from "./tool.ts"
import { isToolOutputURI } from "./tool-output.ts"

/** Default and maximum number of lines returned by one call. */
export const READ_MAX_LINES = 2000
/** Lines longer than this (in UTF-16 code units) are cut. */
export const READ_MAX_LINE_CHARS = 2000
/** Upper bound on the returned text, whatever the line count. */
export const READ_MAX_BYTES = 256 * 1024
/** How much of the file's head is inspected for a NUL byte to decide it is binary. */
export const BINARY_SNIFF_BYTES = 8 * 1024

const CHUNK_BYTES = 64 * 1024

export const ReadInput = Schema.Struct({
  path: Schema.String.annotate({
    description: "Path of the file to read, relative to the session directory (absolute paths must be inside it).",
  }),
  offset: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based line number to start reading from. Defaults to 1.",
    }),
  ),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: READ_MAX_LINES })).annotate({
      description: `Maximum number of lines to return (1-${READ_MAX_LINES}). Defaults to ${READ_MAX_LINES}.`,
    }),
  ),
})
export type ReadInput = typeof ReadInput.Type

/** True when the buffer contains a NUL byte — the usual cheap test for "not a text file". */
export const looksBinary = (head: Uint8Array): boolean => head.indexOf(0) !== -1

/**
 * Streams the lines of an open file without holding it in memory. A line longer than `maxChars` is kept
 * only up to `maxChars + 1` characters (enough to know it was cut); the rest is skipped while scanning.
 * Line terminators (`\n`, `\r\n`) are removed. A trailing newline does not produce an extra empty line.
 */
async function* fileLines(
  handle: fs.FileHandle,
  maxChars: number,
  signal: AbortSignal,
): AsyncGenerator<{ readonly text: string; readonly length: number }> {
  const decoder = new TextDecoder("utf-8")
  const buffer = new Uint8Array(CHUNK_BYTES)
  let line = ""
  let length = 0
  let lastCR = false
  const append = (piece: string) => {
    if (piece.length === 0) return
    length += piece.length
    lastCR = piece.endsWith("\r")
    if (line.length <= maxChars) line += piece.slice(0, maxChars + 1 - line.length)
  }
  const finish = () => {
    let text = line
    let total = length
    if (lastCR) {
      // Drop the "\r" of a "\r\n" terminator (only present in `line` when it holds the whole line).
      if (text.length === total) text = text.slice(0, -1)
      total -= 1
    }
    line = ""
    length = 0
    lastCR = false
    return { text, length: total }
  }
  for (;;) {
    if (signal.aborted) return
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
    const chunk = bytesRead === 0 ? decoder.decode() : decoder.decode(buffer.subarray(0, bytesRead), { stream: true })
    let start = 0
    for (;;) {
      const nl = chunk.indexOf("\n", start)
      if (nl === -1) break
      append(chunk.slice(start, nl))
      yield finish()
      start = nl + 1
    }
    append(chunk.slice(start))
    if (bytesRead === 0) break
  }
  if (length > 0) yield finish()
}

const run = async (root: string, file: string, input: ReadInput, signal: AbortSignal): Promise<string> => {
  const shown = displayPath(root, file)
  const stat = await fs.stat(file)
  if (stat.isDirectory()) {
    throw new ToolError({ tool: "read", message: `"${shown}" is a directory; use the list tool to see its entries` })
  }
  if (!stat.isFile()) throw new ToolError({ tool: "read", message: `"${shown}" is not a regular file` })

  // O_NONBLOCK so that a file swapped for a FIFO after the check above cannot block the open.
  const handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  try {
    const head = new Uint8Array(BINARY_SNIFF_BYTES)
    const { bytesRead } = await handle.read(head, 0, head.length, 0)
    if (looksBinary(head.subarray(0, bytesRead))) {
      throw new ToolError({ tool: "read", message: `"${shown}" looks like a binary file; refusing to read it` })
    }

    const offset = input.offset ?? 1
    const limit = input.limit ?? READ_MAX_LINES
    const width = Math.max(4, String(offset + limit - 1).length)
    const out: Array<string> = []
    let bytes = 0
    let lineNo = 0
    let next: number | undefined // first line not shown, when the file has more
    let cappedByBytes = false

    for await (const { text, length } of fileLines(handle, READ_MAX_LINE_CHARS, signal)) {
      lineNo += 1
      if (lineNo < offset) continue
      if (lineNo >= offset + limit) {
        next = lineNo
        break
      }
      const body =
        length > READ_MAX_LINE_CHARS
          ? `${text.slice(0, READ_MAX_LINE_CHARS)}… (line truncated: ${length} characters)`
          : text
      const formatted = `${String(lineNo).padStart(width)}| ${body}`
      const size = Buffer.byteLength(formatted, "utf8") + 1
      if (bytes + size > READ_MAX_BYTES && out.length > 0) {
        next = lineNo
        cappedByBytes = true
        break
      }
      out.push(formatted)
      bytes += size
    }
    if (signal.aborted) throw new ToolError({ tool: "read", message: "aborted" })

    if (lineNo === 0) return `(${shown} is empty)`
    if (out.length === 0) {
      throw new ToolError({
        tool: "read",
        message: `offset ${offset} is past the end of "${shown}" (${lineNo} line${lineNo === 1 ? "" : "s"})`,
      })
    }
    if (next !== undefined) {
      const why = cappedByBytes ? `Output capped at ${READ_MAX_BYTES / 1024} KiB` : `Showing ${out.length} lines`
      out.push("", `(${why}; "${shown}" has more lines. Read more with offset=${next}.)`)
    }
    return out.join("\n")
  } finally {
    await handle.close()
  }
}

/** Pages a stored tool output (`tool-output://...`) of this session by lines, as a file is paged. */
const readToolOutput = (input: ReadInput, ctx: ToolContext) =>
  Effect.gen(function* () {
    const text = ctx.toolOutput ? yield* Effect.promise(() => ctx.toolOutput!(input.path)) : undefined
    if (text === undefined)
      return yield* new ToolError({ tool: "read", message: `"${input.path}" is not a tool output of this session` })
    const lines = text.split("\n")
    if (lines.length > 1 && lines.at(-1) === "") lines.pop()
    const offset = input.offset ?? 1
    const limit = input.limit ?? READ_MAX_LINES
    if (offset > lines.length)
      return yield* new ToolError({
        tool: "read",
        message: `offset ${offset} is past the end of "${input.path}" (${lines.length} lines)`,
      })
    const width = Math.max(4, String(offset + limit - 1).length)
    const out: Array<string> = []
    let bytes = 0
    let next: number | undefined
    for (let index = offset - 1; index < lines.length; index++) {
      const raw = lines[index]!
      const line =
        raw.length > READ_MAX_LINE_CHARS
          ? `${raw.slice(0, READ_MAX_LINE_CHARS)}… (line truncated: ${raw.length} characters)`
          : raw
      const shown = `${String(index + 1).padStart(width)}| ${line}`
      if (index >= offset - 1 + limit || bytes + shown.length + 1 > READ_MAX_BYTES) {
        next = index + 1
        break
      }
      out.push(shown)
      bytes += shown.length + 1
    }
    if (next !== undefined) out.push("", `("${input.path}" has more lines. Read more with offset=${next}.)`)
    return out.join("\n")
  })

/** Reads a text file inside the session directory, with line numbers. */
export const read: Tool<ReadInput> = {
  name: "read",
  description: [
    "Read a text file inside the session directory.",
    `Returns up to ${READ_MAX_LINES} lines, each prefixed with its 1-based line number ("  12| text").`,
    "Use offset and limit to read a specific range of a large file; the output says which offset to use",
    `to continue. Lines longer than ${READ_MAX_LINE_CHARS} characters are truncated. Binary files and`,
    "directories are refused (use list for directories).",
  ].join(" "),
  input: ReadInput,
  execute: (input, ctx) =>
    Effect.gen(function* () {
      if (isToolOutputURI(input.path)) return yield* readToolOutput(input, ctx)
      const { root, path } = yield* resolveInsideWithRoot("read", ctx.directory, input.path)
      return yield* Effect.tryPromise({
        try: (signal) => run(root, path, input, AbortSignal.any([signal, ctx.signal])),
        catch: (error) =>
          error instanceof ToolError
            ? error
            : new ToolError({ tool: "read", message: `cannot read "${input.path}": ${String(error)}` }),
      })
    }),
}
