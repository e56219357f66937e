import { parse } from "yaml"

/** A Markdown file split into its YAML frontmatter (the `---` block it opens with) and its body. */
export interface Frontmatter {
  readonly attributes: Readonly<Record<string, unknown>>
  readonly body: string
}

/** What is wrong with a file's frontmatter, in one line (the YAML parser's message, or the wrong shape). */
export class FrontmatterError extends Error {
  override readonly name = "FrontmatterError"
}

const OPENING = /^---[ \t]*\r?\n/
const CLOSING = /^---[ \t]*$/m

/**
 * Splits `text` into frontmatter and body. A file without a leading `---` line has no attributes and is all
 * body. A block that never closes, does not parse as YAML or is not a mapping throws `FrontmatterError`:
 * guessing what a broken header meant would run a command with the wrong agent or model.
 */
export const parseFrontmatter = (text: string): Frontmatter => {
  const content = text.startsWith("\uFEFF") ? text.slice(1) : text
  const opening = OPENING.exec(content)
  if (!opening) return { attributes: {}, body: content }
  const rest = content.slice(opening[0].length)
  const closing = CLOSING.exec(rest)
  if (!closing) throw new FrontmatterError("frontmatter opened with --- is never closed")
  const source = rest.slice(0, closing.index)
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "")
  let attributes: unknown
  try {
    attributes = parse(source, { prettyErrors: false })
  } catch (error) {
    throw new FrontmatterError(`frontmatter is not valid YAML: ${(error as Error).message.split("\n")[0]}`)
  }
  if (attributes === null || attributes === undefined) return { attributes: {}, body }
  if (typeof attributes !== "object" || Array.isArray(attributes))
    throw new FrontmatterError("frontmatter must be a mapping of keys to values")
  return { attributes: attributes as Record<string, unknown>, body }
}
