import { safeHref } from "./href.ts"

/**
 * Inline markdown: code spans, emphasis (`*`, `_`), strong (`**`, `__`), strikethrough (`~~`), links
 * (`[text](url)`, `<url>` and bare `http(s)://` URLs), backslash escapes and line breaks. Everything
 * else, raw HTML included, is text. Unclosed markers stay literal, so text still streaming in reads as
 * typed until its closing marker arrives.
 */
export type Inline =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "code"; readonly text: string }
  | { readonly type: "em" | "strong" | "del"; readonly children: ReadonlyArray<Inline> }
  /** `href` undefined: the target was refused (see `safeHref`); the text shows without a link. */
  | { readonly type: "link"; readonly href: string | undefined; readonly children: ReadonlyArray<Inline> }
  | { readonly type: "break" }

const PUNCTUATION = /[!-/:-@[-`{-~]/
const SPACE = /\s/
const WORD = /[\p{L}\p{N}]/u

/** The end of a bracketed `[...]` starting at `open` (nested brackets balanced), or -1. */
const closingBracket = (s: string, open: number) => {
  let depth = 0
  for (let i = open; i < s.length; i++) {
    const c = s[i]
    if (c === "\\") i++
    else if (c === "`") {
      // A code span inside link text hides its brackets.
      let run = 1
      while (s[i + run] === "`") run++
      const end = s.indexOf("`".repeat(run), i + run)
      if (end > 0) i = end + run - 1
    } else if (c === "[") depth++
    else if (c === "]" && --depth === 0) return i
  }
  return -1
}

/** `(url "title")` at `open`: the url and the index after `)`, or undefined. */
const destination = (s: string, open: number): { url: string; end: number } | undefined => {
  if (s[open] !== "(") return undefined
  let i = open + 1
  while (s[i] === " ") i++
  let url = ""
  if (s[i] === "<") {
    const close = s.indexOf(">", i)
    if (close < 0 || s.slice(i, close).includes("\n")) return undefined
    url = s.slice(i + 1, close)
    i = close + 1
  } else {
    let depth = 0
    const start = i
    for (; i < s.length; i++) {
      const c = s[i]!
      if (c === "\\") i++
      else if (c === "(") depth++
      else if (c === ")") {
        if (depth === 0) break
        depth--
      } else if (SPACE.test(c)) break
    }
    url = s.slice(start, i)
  }
  while (s[i] === " ") i++
  const quote = s[i]
  if (quote === '"' || quote === "'") {
    const close = s.indexOf(quote, i + 1)
    if (close < 0) return undefined
    i = close + 1
    while (s[i] === " ") i++
  }
  if (s[i] !== ")") return undefined
  return { url, end: i + 1 }
}

/** A bare URL's end: trailing punctuation and an unbalanced `)` belong to the sentence, not the URL. */
const bareUrlEnd = (s: string, start: number) => {
  let end = start
  while (end < s.length && !SPACE.test(s[end]!) && s[end] !== "<") end++
  while (end > start && /[.,:;!?'"*_~]/.test(s[end - 1]!)) end--
  const url = s.slice(start, end)
  const opens = url.split("(").length
  const closes = url.split(")").length
  if (closes > opens && s[end - 1] === ")") end--
  return end
}

/** Where the run closing an emphasis opened before `from` starts (a run of exactly the marker's width), or -1. */
const closingDelimiter = (s: string, from: number, marker: string) => {
  const char = marker[0]!
  let i = from
  while (i < s.length) {
    const c = s[i]!
    if (c === "\\") {
      i += 2
      continue
    }
    if (c === "`") {
      let run = 1
      while (s[i + run] === "`") run++
      const end = s.indexOf("`".repeat(run), i + run)
      i = end > 0 ? end + run : i + run
      continue
    }
    if (c === char) {
      let run = 1
      while (s[i + run] === char) run++
      const after = s[i + run]
      const closes = i > from && !SPACE.test(s[i - 1]!) && !(char === "_" && after !== undefined && WORD.test(after))
      if (closes && run === marker.length) return i
      i += run
      continue
    }
    i++
  }
  return -1
}

export const parseInline = (s: string): Array<Inline> => {
  const out: Array<Inline> = []
  let text = ""
  const flush = () => {
    if (text) out.push({ type: "text", text })
    text = ""
  }
  let i = 0
  while (i < s.length) {
    const c = s[i]!
    if (c === "\\" && i + 1 < s.length && PUNCTUATION.test(s[i + 1]!)) {
      text += s[i + 1]
      i += 2
      continue
    }
    if (c === "\\" && s[i + 1] === "\n") {
      flush()
      out.push({ type: "break" })
      i += 2
      continue
    }
    if (c === "\n") {
      // Chat text keeps its line breaks (as GitHub comments do): every newline is a break.
      text = text.replace(/ +$/, "")
      flush()
      out.push({ type: "break" })
      i++
      continue
    }
    if (c === "`") {
      let run = 1
      while (s[i + run] === "`") run++
      const fence = "`".repeat(run)
      let close = s.indexOf(fence, i + run)
      while (close > 0 && s[close + run] === "`") {
        let skip = close
        while (s[skip] === "`") skip++
        close = s.indexOf(fence, skip)
      }
      if (close > 0) {
        flush()
        let code = s.slice(i + run, close).replace(/\n/g, " ")
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1)
        out.push({ type: "code", text: code })
        i = close + run
      } else {
        text += fence
        i += run
      }
      continue
    }
    if (c === "[" || (c === "!" && s[i + 1] === "[")) {
      const open = c === "!" ? i + 1 : i
      const close = closingBracket(s, open)
      const target = close > 0 ? destination(s, close + 1) : undefined
      if (target) {
        flush()
        // Images are shown as links to them: the page loads nothing from elsewhere.
        const label = s.slice(open + 1, close)
        out.push({
          type: "link",
          href: safeHref(target.url),
          children: c === "!" ? [{ type: "text", text: label || target.url }] : parseInline(label),
        })
        i = target.end
        continue
      }
    }
    if (c === "<") {
      const auto = /^<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^\s<>]*)>/.exec(s.slice(i, i + 2048))
      if (auto) {
        flush()
        out.push({ type: "link", href: safeHref(auto[1]!), children: [{ type: "text", text: auto[1]! }] })
        i += auto[0].length
        continue
      }
    }
    if (
      (c === "h" || c === "H") &&
      /^https?:\/\/[^\s<]/i.test(s.slice(i, i + 9)) &&
      (i === 0 || !WORD.test(s[i - 1]!))
    ) {
      const end = bareUrlEnd(s, i)
      flush()
      const url = s.slice(i, end)
      out.push({ type: "link", href: safeHref(url), children: [{ type: "text", text: url }] })
      i = end
      continue
    }
    if (c === "*" || c === "_" || c === "~") {
      let run = 1
      while (s[i + run] === c) run++
      const before = i > 0 ? s[i - 1]! : " "
      const next = s[i + run]
      const opens = next !== undefined && !SPACE.test(next) && !(c === "_" && WORD.test(before))
      // `***x***` is strong around em: the widest marker is tried first, narrower ones after.
      const widths = !opens ? [] : c === "~" ? (run === 2 ? [2] : []) : run >= 3 ? [3, 2, 1] : run === 2 ? [2, 1] : [1]
      let matched = false
      for (const width of widths) {
        const close = closingDelimiter(s, i + width, c.repeat(width))
        if (close < 0) continue
        flush()
        const inner = parseInline(s.slice(i + width, close))
        out.push(
          width === 3
            ? { type: "strong", children: [{ type: "em", children: inner }] }
            : { type: c === "~" ? "del" : width === 2 ? "strong" : "em", children: inner },
        )
        i = close + width
        matched = true
        break
      }
      if (matched) continue
      text += c.repeat(run)
      i += run
      continue
    }
    text += c
    i++
  }
  flush()
  return out
}
