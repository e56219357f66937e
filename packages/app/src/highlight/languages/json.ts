import { type Grammar, rule } from "../grammar.ts"

/** JSON (and JSON with comments): keys apart from string values. */
export const json: Grammar = {
  name: "json",
  rules: [
    rule("comment", /\/\/[^\n]*|\/\*[^]*?(?:\*\/|$)/),
    rule("property", /"(?:\\.|[^\\"\n])*"(?=\s*:)/),
    rule("string", /"(?:\\.|[^\\"\n])*"?/),
    rule("number", /-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b/),
    rule("literal", /\b(?:true|false|null)\b/),
  ],
}
