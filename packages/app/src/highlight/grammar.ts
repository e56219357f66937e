/**
 * A language for the highlighter: ordered rules, each a sticky regular expression and the token class
 * it makes. At each position the first rule that matches wins; text no rule matches stays plain. Small
 * and predictable rather than exact: it colours what a reader scans for (comments, strings, keywords,
 * numbers, names being called), never changes the text.
 */
export type TokenKind =
  | "comment"
  | "string"
  | "number"
  | "keyword"
  | "literal"
  | "type"
  | "function"
  | "property"
  | "variable"
  | "meta"
  | "add"
  | "del"
  | "hunk"

export interface Rule {
  readonly kind: TokenKind
  readonly pattern: RegExp
}

export interface Grammar {
  readonly name: string
  readonly rules: ReadonlyArray<Rule>
}

/** A rule from a pattern source; the flags make it match only where the scan stands. */
export const rule = (kind: TokenKind, source: string | RegExp, flags = ""): Rule => ({
  kind,
  pattern: new RegExp(typeof source === "string" ? source : source.source, `y${flags}`),
})

/** `\b(?:a|b|c)\b` for a list of words. */
export const words = (list: string) => `\\b(?:${list.trim().split(/\s+/).join("|")})\\b`

export interface Token {
  readonly kind: TokenKind | undefined
  readonly text: string
}

/** Splits code into tokens with the grammar; joined, the tokens' texts are the code exactly. */
export const tokenize = (code: string, grammar: Grammar): Array<Token> => {
  const out: Array<Token> = []
  let plain = ""
  let i = 0
  outer: while (i < code.length) {
    for (const { kind, pattern } of grammar.rules) {
      pattern.lastIndex = i
      const match = pattern.exec(code)
      if (match && match[0].length > 0) {
        if (plain) out.push({ kind: undefined, text: plain })
        plain = ""
        out.push({ kind, text: match[0] })
        i += match[0].length
        continue outer
      }
    }
    // An identifier never matched as a whole is skipped as a whole, so no rule matches inside a word.
    const word = /[\w$]+|[^]/y
    word.lastIndex = i
    const skipped = word.exec(code)![0]
    plain += skipped
    i += skipped.length
  }
  if (plain) out.push({ kind: undefined, text: plain })
  return out
}
