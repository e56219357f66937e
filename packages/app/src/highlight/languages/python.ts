import { type Grammar, rule, words } from "../grammar.ts"

export const python: Grammar = {
  name: "python",
  rules: [
    rule("comment", /#[^\n]*/),
    rule("string", /[rRbBuUfF]{0,2}(?:"""[^]*?(?:"""|$)|'''[^]*?(?:'''|$)|"(?:\\.|[^\\"\n])*"?|'(?:\\.|[^\\'\n])*'?)/),
    rule("meta", /@[\w.]+/),
    rule("number", /\b(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?j?)\b/),
    rule(
      "keyword",
      words(`
        and as assert async await break class continue def del elif else except finally for from global if
        import in is lambda nonlocal not or pass raise return try while with yield match case self`),
    ),
    rule("literal", words("True False None")),
    rule("type", /\b[A-Z][\w]*\b/),
    rule("function", /[a-zA-Z_]\w*(?=\s*\()/),
  ],
}
