import { color, type Span } from "./style.ts"

/**
 * Syntax highlighting for code fences: a small tokenizer per language family (keywords, strings, numbers,
 * comments), line by line. Enough to read code in a terminal; no grammar files to load or embed.
 */

const KEYWORDS: Record<string, ReadonlySet<string>> = {
  js: new Set(
    "const let var function return if else for while do switch case break continue new class extends import export from default async await yield try catch finally throw typeof instanceof in of this super null undefined true false interface type enum implements readonly as satisfies declare namespace void".split(
      " ",
    ),
  ),
  python: new Set(
    "def return if elif else for while break continue class import from as with try except finally raise lambda yield pass None True False and or not in is global nonlocal async await del assert".split(
      " ",
    ),
  ),
  bash: new Set(
    "if then else elif fi for while do done case esac function in return export local echo cd set exit".split(" "),
  ),
  json: new Set(["true", "false", "null"]),
}

const ALIASES: Record<string, string> = {
  ts: "js",
  typescript: "js",
  tsx: "js",
  js: "js",
  javascript: "js",
  jsx: "js",
  mjs: "js",
  json: "json",
  jsonc: "json",
  bash: "bash",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  python: "python",
  py: "python",
  diff: "diff",
  patch: "diff",
}

/** The language family a fence's info string names, or undefined for plain text. */
export const languageOf = (info: string): string | undefined =>
  ALIASES[info.trim().split(/\s+/)[0]?.toLowerCase() ?? ""]

const TOKEN =
  /(\/\/.*$|#.*$|\/\*.*?\*\/|"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?|\b\d[\d_.]*(?:e[+-]?\d+)?\b|[A-Za-z_$][\w$]*)/g

/** One line of code as styled spans. */
export const highlightLine = (line: string, language: string | undefined): Array<Span> => {
  if (language === undefined) return [{ text: line, fg: color.text }]
  if (language === "diff") {
    const fg =
      line.startsWith("+++") || line.startsWith("---")
        ? color.accent
        : line.startsWith("+")
          ? color.add
          : line.startsWith("-")
            ? color.remove
            : line.startsWith("@@")
              ? color.keyword
              : color.text
    return [{ text: line, fg }]
  }
  const keywords = KEYWORDS[language] ?? new Set<string>()
  const spans: Array<Span> = []
  let last = 0
  for (const match of line.matchAll(TOKEN)) {
    const token = match[0]
    const at = match.index
    // `#` starts a comment in bash and python only; `//` and `/* */` in js only.
    const comment =
      ((token.startsWith("//") || token.startsWith("/*")) && language === "js") ||
      (token.startsWith("#") && (language === "bash" || language === "python"))
    if (token.startsWith("#") && !comment) continue
    if (token.startsWith("/") && !comment) continue
    if (at > last) spans.push({ text: line.slice(last, at), fg: color.text })
    const fg = comment
      ? color.comment
      : /^["'`]/.test(token)
        ? color.string
        : /^\d/.test(token)
          ? color.number
          : keywords.has(token)
            ? color.keyword
            : line[at + token.length] === "("
              ? color.fn
              : color.text
    spans.push({ text: token, fg, ...(comment ? { italic: true } : {}) })
    last = at + token.length
    if (comment) {
      last = line.length
      spans[spans.length - 1] = { text: line.slice(at), fg: color.comment, italic: true }
      break
    }
  }
  if (last < line.length) spans.push({ text: line.slice(last), fg: color.text })
  return spans
}
