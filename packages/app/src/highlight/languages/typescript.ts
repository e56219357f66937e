import { type Grammar, rule, words } from "../grammar.ts"

/** TypeScript and JavaScript (JSX reads well enough as the same). */
export const typescript: Grammar = {
  name: "typescript",
  rules: [
    rule("comment", /\/\/[^\n]*|\/\*[^]*?(?:\*\/|$)/),
    rule("string", /`(?:\\[^]|[^\\`])*`?|"(?:\\.|[^\\"\n])*"?|'(?:\\.|[^\\'\n])*'?/),
    rule("number", /\b(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)n?\b/),
    rule(
      "keyword",
      words(`
        abstract as async await break case catch class const continue debugger declare default delete do else
        enum export extends finally for from function get if implements import in infer instanceof interface
        is keyof let namespace new of override private protected public readonly return satisfies set static
        super switch this throw try type typeof var void while with yield`),
    ),
    rule("literal", words("true false null undefined NaN Infinity")),
    rule("type", /\b[A-Z][\w$]*\b/),
    rule("function", /[a-zA-Z_$][\w$]*(?=\s*(?:<[^<>()]*>)?\()/),
    rule("property", /(?<=\.)[a-zA-Z_$][\w$]*/),
  ],
}
