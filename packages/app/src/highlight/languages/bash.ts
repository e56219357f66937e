import { type Grammar, rule, words } from "../grammar.ts"

/** Shell scripts and sessions (`$ ` prompts read as plain text before the command). */
export const bash: Grammar = {
  name: "bash",
  rules: [
    rule("comment", /(?<![^\s;|&(])#[^\n]*/),
    rule("string", /"(?:\\[^]|[^\\"])*"?|'[^']*'?|\$'(?:\\.|[^\\'])*'?/),
    rule("variable", /\$(?:\{[^}\n]*\}?|[A-Za-z_]\w*|[0-9@#?*!$-])/),
    rule(
      "keyword",
      words(`
        if then else elif fi for while until do done case esac in function select return break continue
        local export readonly declare unset set shift exit source alias`),
    ),
    rule(
      "function",
      words(`
        cd echo printf cat grep sed awk find xargs ls cp mv rm mkdir rmdir touch chmod chown curl wget git npm
        npx bun node yarn pnpm make cargo go python python3 pip docker kubectl ssh tar sort uniq head tail wc
        test true false sudo apt apt-get`),
    ),
    rule("number", /\b\d+\b/),
    rule("property", /(?<=\s)--?[A-Za-z0-9][\w-]*/),
  ],
}
