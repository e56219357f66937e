import { RGBA, StyledText, TextAttributes, type TextChunk } from "@opentui/core"

/**
 * The TUI's palette and the one way text gets styled: a span is a piece of text with a style, a line a list
 * of spans, and `styled` turns lines into the renderer's `StyledText`.
 */
export interface Span {
  readonly text: string
  readonly fg?: string
  readonly bg?: string
  readonly bold?: boolean
  readonly italic?: boolean
  readonly underline?: boolean
  readonly dim?: boolean
  readonly strike?: boolean
  readonly link?: string
}

export type Line = ReadonlyArray<Span>

export const color = {
  text: "#d8dee9",
  dim: "#7b8394",
  accent: "#88c0d0",
  user: "#a3be8c",
  warn: "#ebcb8b",
  error: "#bf616a",
  add: "#a3be8c",
  remove: "#bf616a",
  keyword: "#b48ead",
  string: "#a3be8c",
  number: "#d08770",
  comment: "#6b7386",
  fn: "#81a1c1",
  border: "#4c566a",
  selected: "#3b4252",
} as const

const { BOLD, DIM, ITALIC, UNDERLINE, STRIKETHROUGH: STRIKE } = TextAttributes

const rgba = new Map<string, RGBA>()
const toRGBA = (hex: string) => {
  let value = rgba.get(hex)
  if (!value) rgba.set(hex, (value = RGBA.fromHex(hex)))
  return value
}

const chunk = (span: Span): TextChunk => {
  const attributes =
    (span.bold ? BOLD : 0) |
    (span.dim ? DIM : 0) |
    (span.italic ? ITALIC : 0) |
    (span.underline ? UNDERLINE : 0) |
    (span.strike ? STRIKE : 0)
  return {
    __isChunk: true,
    text: span.text,
    ...(span.fg ? { fg: toRGBA(span.fg) } : {}),
    ...(span.bg ? { bg: toRGBA(span.bg) } : {}),
    ...(attributes ? { attributes } : {}),
    ...(span.link ? { link: { url: span.link } } : {}),
  } as TextChunk
}

/** Lines as the renderer's styled text (lines joined with newlines). */
export const styled = (lines: ReadonlyArray<Line>): StyledText => {
  const chunks: Array<TextChunk> = []
  lines.forEach((line, i) => {
    if (i > 0) chunks.push(chunk({ text: "\n" }))
    for (const span of line) if (span.text !== "") chunks.push(chunk(span))
  })
  return new StyledText(chunks)
}

/** The plain text of lines, as a test or a capture sees them. */
export const plain = (lines: ReadonlyArray<Line>) => lines.map((line) => line.map((s) => s.text).join("")).join("\n")
