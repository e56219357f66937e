/** A prompt that names a command: `/name` and the text after it. */
export interface Invocation {
  readonly name: string
  /** Everything after the name, trimmed ("" without arguments). */
  readonly arguments: string
}

/**
 * The command a prompt invokes, if its text starts with `/name` (leading whitespace allowed) followed by
 * the end or whitespace. Whether `name` is a defined command is the caller's question.
 */
export const parseInvocation = (text: string): Invocation | undefined => {
  const match = /^\s*\/([^\s/][^\s]*)(?:\s+([\s\S]*))?$/.exec(text)
  if (!match) return undefined
  return { name: match[1]!, arguments: (match[2] ?? "").trim() }
}

/**
 * The arguments as words: split at whitespace, with `"..."` and `'...'` keeping spaces inside one word
 * (the quotes themselves are dropped).
 */
export const splitArguments = (text: string): Array<string> => {
  const words: Array<string> = []
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g
  for (let match = pattern.exec(text); match; match = pattern.exec(text))
    words.push(match[1] ?? match[2] ?? match[3] ?? "")
  return words
}

const POSITIONAL = /\$(\d+)/g
const PLACEHOLDER = /\$ARGUMENTS|\$(\d+)/g

/**
 * The longest expansion admitted, in UTF-8 bytes: the server's default request body limit, so a command
 * cannot turn a small request into a message no client could have sent.
 */
export const EXPANSION_MAX_BYTES = 1024 * 1024

const bytes = (text: string) => Buffer.byteLength(text, "utf8")

/**
 * The UTF-8 size `expandTemplate(template, args)` would have, counted from the placeholders and the
 * arguments' sizes without building the text (a template can repeat a placeholder thousands of times).
 */
export const expandedSize = (template: string, args: string): number => {
  const words = splitArguments(args)
  const used = [...template.matchAll(POSITIONAL)].map((match) => Number(match[1]))
  const hasArguments = template.includes("$ARGUMENTS")
  if (used.length === 0 && !hasArguments)
    return args === "" ? bytes(template) : bytes(template.trimEnd()) + 2 + bytes(args)
  const last = used.length > 0 ? Math.max(...used) : 0
  const argsBytes = bytes(args)
  const wordBytes = words.map(bytes)
  const restBytes = (index: number) => {
    const rest = wordBytes.slice(index - 1)
    return rest.length === 0 ? 0 : rest.reduce((sum, size) => sum + size, 0) + rest.length - 1
  }
  let size = bytes(template)
  for (const match of template.matchAll(PLACEHOLDER)) {
    size -= match[0].length
    if (match[1] === undefined) size += argsBytes
    else {
      const index = Number(match[1])
      if (index !== 0) size += index === last ? restBytes(index) : (wordBytes[index - 1] ?? 0)
    }
  }
  return size
}

/**
 * A command template with its arguments filled in:
 * - `$ARGUMENTS` is every argument, as typed;
 * - `$1`, `$2`... are single words (`splitArguments`); the highest-numbered placeholder the template uses
 *   takes that word and all after it, so no argument is lost; a placeholder with no word becomes "";
 * - a template with neither gets the arguments appended after a blank line (when there are any), so
 *   `/review src/a.ts` still tells the model what to review.
 */
export const expandTemplate = (template: string, args: string): string => {
  const words = splitArguments(args)
  const used = [...template.matchAll(POSITIONAL)].map((match) => Number(match[1]))
  const hasArguments = template.includes("$ARGUMENTS")
  if (used.length === 0 && !hasArguments) return args === "" ? template : `${template.trimEnd()}\n\n${args}`
  const last = used.length > 0 ? Math.max(...used) : 0
  // One pass, so an argument that itself contains `$1` or `$ARGUMENTS` is inserted as typed.
  return template.replace(PLACEHOLDER, (_, digits: string | undefined) => {
    if (digits === undefined) return args
    const index = Number(digits)
    if (index === 0) return ""
    return index === last ? words.slice(index - 1).join(" ") : (words[index - 1] ?? "")
  })
}
