import { type Grammar, rule } from "../grammar.ts"

/** Unified diffs, line by line. */
export const diff: Grammar = {
  name: "diff",
  rules: [
    rule("meta", /^(?:diff |index |\+\+\+|---)[^\n]*/, "m"),
    rule("hunk", /^@@[^\n]*/, "m"),
    rule("add", /^\+[^\n]*/, "m"),
    rule("del", /^-[^\n]*/, "m"),
  ],
}
