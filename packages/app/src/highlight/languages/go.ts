import { type Grammar, rule, words } from "../grammar.ts"

export const go: Grammar = {
  name: "go",
  rules: [
    rule("comment", /\/\/[^\n]*|\/\*[^]*?(?:\*\/|$)/),
    rule("string", /`[^`]*`?|"(?:\\.|[^\\"\n])*"?|'(?:\\.|[^\\'\n])*'?/),
    rule("number", /\b(?:0[xX][\da-fA-F_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?i?)\b/),
    rule(
      "keyword",
      words(`
        break case chan const continue default defer else fallthrough for func go goto if import interface map
        package range return select struct switch type var`),
    ),
    rule("literal", words("true false nil iota")),
    rule(
      "type",
      words(`
        bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8
        uint16 uint32 uint64 uintptr any`),
    ),
    rule("function", /[a-zA-Z_]\w*(?=\s*\()/),
    rule("type", /\b[A-Z]\w*\b/),
  ],
}
