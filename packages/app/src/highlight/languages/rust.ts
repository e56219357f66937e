import { type Grammar, rule, words } from "../grammar.ts"

export const rust: Grammar = {
  name: "rust",
  rules: [
    rule("comment", /\/\/[^\n]*|\/\*[^]*?(?:\*\/|$)/),
    rule("string", /b?r(#*)"[^]*?(?:"\1|$)|b?"(?:\\[^]|[^\\"])*"?|b?'(?:\\.|[^\\'\n])'/),
    rule("meta", /#!?\[[^\]\n]*\]?/),
    rule(
      "number",
      /\b(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)(?:[iu](?:8|16|32|64|128|size)|f32|f64)?\b/,
    ),
    rule(
      "keyword",
      words(`
        as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod
        move mut pub ref return self Self static struct super trait type unsafe use where while`),
    ),
    rule("literal", words("true false None Some Ok Err")),
    rule("function", /[a-z_]\w*!?(?=\s*(?:::<[^>]*>)?\()|[a-z_]\w*!/),
    rule("type", /\b[A-Z]\w*\b|\b(?:i8|i16|i32|i64|i128|isize|u8|u16|u32|u64|u128|usize|f32|f64|bool|char|str)\b/),
  ],
}
