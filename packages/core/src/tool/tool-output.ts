import { BASH_MAX_OUTPUT_BYTES } from "./bash.ts"

/** Plugin and MCP tool output kept for the model, like bash's: the first and the last half of this many bytes. */
export const TOOL_OUTPUT_MAX_BYTES = BASH_MAX_OUTPUT_BYTES

/** How a stored full output is addressed: `tool-output://sha256:<hex>`, readable with the read tool. */
export const TOOL_OUTPUT_SCHEME = "tool-output://"
const URI = /^tool-output:\/\/sha256:[0-9a-f]{64}$/

/** Whether an output is over the cap (cheap for short ones: UTF-8 is at most 3 bytes per UTF-16 unit). */
export const overCap = (output: string, max = TOOL_OUTPUT_MAX_BYTES): boolean =>
  output.length > max || (output.length * 3 > max && Buffer.byteLength(output, "utf8") > max)

/** Whether `path` names a stored tool output (rather than a file). */
export const isToolOutputURI = (path: string): boolean => path.startsWith(TOOL_OUTPUT_SCHEME)
/** Whether `path` is a well-formed tool-output address. */
export const validToolOutputURI = (path: string): boolean => URI.test(path)

/** Cuts a string's UTF-8 encoding to at most `max` bytes at a character boundary, from the start or the end. */
const headBytes = (text: string, max: number) => {
  const buffer = Buffer.from(text.slice(0, max), "utf8").subarray(0, max)
  return new TextDecoder("utf-8", { fatal: false }).decode(buffer).replace(/\uFFFD$/, "")
}
const tailBytes = (text: string, max: number) => {
  const buffer = Buffer.from(text.slice(-max), "utf8")
  return new TextDecoder("utf-8", { fatal: false }).decode(buffer.subarray(buffer.length - max)).replace(/^\uFFFD/, "")
}

/** The words of the note that name where the whole output is stored. */
export const outputNote = (uri: string) => `the whole output is ${uri}:`

/**
 * The text the model gets for an output over the cap: its head and tail, and between them a note saying
 * how much was left out and the address the whole output is stored under.
 */
export const cappedOutput = (output: string, ref: string | undefined, max = TOOL_OUTPUT_MAX_BYTES): string => {
  const total = Buffer.byteLength(output, "utf8")
  const half = Math.floor(max / 2)
  return (
    headBytes(output, half) +
    `\n\n... [output truncated to the first and last ${half / 1024} KiB of ${total} bytes` +
    (ref === undefined
      ? "] ...\n\n"
      : `; ${outputNote(TOOL_OUTPUT_SCHEME + ref)} read it with the read tool (offset and limit in lines)] ...\n\n`) +
    tailBytes(output, half)
  )
}
