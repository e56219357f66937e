import { highlightLine, languageOf } from "./highlight.ts"
import { color, type Line, type Span } from "./style.ts"

/**
 * Markdown as terminal lines: headings, emphasis, inline code, links, lists, quotes and fenced code
 * (highlighted by `highlight.ts`). Line-based, so text still arriving renders as far as it has come
 * (an unclosed fence highlights what it holds so far). No HTML is interpreted: it stays text.
 */

const INLINE = /(\*\*[^*]+\*\*|__[^_]+__|\*[^*\s][^*]*\*|_[^_\s][^_]*_|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/g

/** Inline markup of one line of prose. */
export const inline = (text: string, base: Span = { text: "", fg: color.text }): Array<Span> => {
  const spans: Array<Span> = []
  let last = 0
  for (const match of text.matchAll(INLINE)) {
    const token = match[0]
    if (match.index > last) spans.push({ ...base, text: text.slice(last, match.index) })
    if (token.startsWith("**") || token.startsWith("__")) spans.push({ ...base, text: token.slice(2, -2), bold: true })
    else if (token.startsWith("`")) spans.push({ ...base, text: token.slice(1, -1), fg: color.number })
    else if (token.startsWith("[")) {
      const close = token.indexOf("](")
      const url = token.slice(close + 2, -1)
      spans.push({ ...base, text: token.slice(1, close), fg: color.accent, underline: true, link: url })
      spans.push({ text: ` (${url})`, fg: color.dim })
    } else spans.push({ ...base, text: token.slice(1, -1), italic: true })
    last = match.index + token.length
  }
  if (last < text.length) spans.push({ ...base, text: text.slice(last) })
  return spans
}

/** A markdown document as lines. */
export const markdown = (source: string): Array<Line> => {
  const lines: Array<Line> = []
  let fence: { marker: string; language: string | undefined } | undefined
  for (const raw of source.split("\n")) {
    const line = raw.replace(/\t/g, "  ")
    const fenceMatch = /^\s*(```+|~~~+)\s*(.*)$/.exec(line)
    if (fence) {
      if (fenceMatch && fenceMatch[1]!.startsWith(fence.marker) && fenceMatch[2] === "") {
        fence = undefined
        continue
      }
      lines.push([{ text: "│ ", fg: color.border }, ...highlightLine(line, fence.language)])
      continue
    }
    if (fenceMatch) {
      fence = { marker: fenceMatch[1]!, language: languageOf(fenceMatch[2] ?? "") }
      if (fenceMatch[2]) lines.push([{ text: `┌ ${fenceMatch[2].trim()}`, fg: color.border }])
      continue
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line)
    if (heading) {
      const level = heading[1]!.length
      lines.push(
        inline(heading[2]!, {
          text: "",
          fg: level <= 2 ? color.accent : color.text,
          bold: true,
          underline: level === 1,
        }),
      )
      continue
    }
    const bullet = /^(\s*)([-*+])\s+(.*)$/.exec(line)
    if (bullet) {
      const task = /^\[([ xX])\]\s+(.*)$/.exec(bullet[3]!)
      const mark = task ? (task[1] === " " ? "☐ " : "☑ ") : "• "
      lines.push([{ text: `${bullet[1]}${mark}`, fg: color.accent }, ...inline(task ? task[2]! : bullet[3]!)])
      continue
    }
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line)
    if (numbered) {
      lines.push([{ text: `${numbered[1]}${numbered[2]} `, fg: color.accent }, ...inline(numbered[3]!)])
      continue
    }
    const quote = /^>\s?(.*)$/.exec(line)
    if (quote) {
      lines.push([{ text: "▎ ", fg: color.dim }, ...inline(quote[1]!, { text: "", fg: color.dim, italic: true })])
      continue
    }
    if (/^\s*([-*_])\s*\1\s*\1[\s\-*_]*$/.test(line)) {
      lines.push([{ text: "────────", fg: color.border }])
      continue
    }
    lines.push(inline(line))
  }
  return lines
}
