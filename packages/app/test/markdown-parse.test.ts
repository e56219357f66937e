import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { tokenize } from "../src/highlight/grammar.ts"
import { bash } from "../src/highlight/languages/bash.ts"
import { diff } from "../src/highlight/languages/diff.ts"
import { go } from "../src/highlight/languages/go.ts"
import { json } from "../src/highlight/languages/json.ts"
import { python } from "../src/highlight/languages/python.ts"
import { rust } from "../src/highlight/languages/rust.ts"
import { typescript } from "../src/highlight/languages/typescript.ts"
import { parseBlocks } from "../src/markdown/blocks.ts"
import { safeHref } from "../src/markdown/href.ts"
import { type Inline, parseInline } from "../src/markdown/inline.ts"

/** The text a reader sees, with links as `[text](href)` and refused ones as `{text}`. */
const show = (nodes: ReadonlyArray<Inline>): string =>
  nodes
    .map((n) =>
      n.type === "text"
        ? n.text
        : n.type === "code"
          ? `<code:${n.text}>`
          : n.type === "break"
            ? "<br>"
            : n.type === "link"
              ? n.href === undefined
                ? `{${show(n.children)}}`
                : `[${show(n.children)}](${n.href})`
              : `<${n.type}:${show(n.children)}>`,
    )
    .join("")

const links = (nodes: ReadonlyArray<Inline>): Array<string | undefined> =>
  nodes.flatMap((n) => (n.type === "link" ? [n.href, ...links(n.children)] : "children" in n ? links(n.children) : []))

describe("markdown blocks", () => {
  it("reads headings, lists, tables, quotes, rules and fenced code", () => {
    const blocks = parseBlocks(
      [
        "## Plan",
        "Some **bold** text",
        "continued",
        "",
        "- one",
        "- two",
        "  - nested",
        "",
        "1. first",
        "2. second",
        "",
        "| a | b |",
        "|:--|--:|",
        "| 1 | 2 |",
        "",
        "> quoted",
        "",
        "---",
        "```ts",
        "const x = 1",
        "```",
      ].join("\n"),
    )
    expect(blocks.map((b) => b.type)).toEqual([
      "heading",
      "paragraph",
      "list",
      "list",
      "table",
      "quote",
      "rule",
      "code",
    ])
    const [heading, , bullets, ordered, table, , , code] = blocks
    expect(heading).toMatchObject({ level: 2, text: "Plan" })
    expect(bullets).toMatchObject({ ordered: false })
    expect(bullets!.type === "list" && bullets!.items[1]!.map((b) => b.type)).toEqual(["paragraph", "list"])
    expect(ordered).toMatchObject({ ordered: true, start: 1 })
    expect(table).toMatchObject({ head: ["a", "b"], align: ["left", "right"], rows: [["1", "2"]] })
    expect(code).toMatchObject({ lang: "ts", code: "const x = 1", closed: true })
  })

  it("treats an unclosed fence as code already, so streaming code never reflows", () => {
    expect(parseBlocks("text\n```python\ndef f():")).toMatchObject([
      { type: "paragraph" },
      { type: "code", lang: "python", code: "def f():", closed: false },
    ])
  })

  it("keeps every earlier block's source when text is appended", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("# h", "para", "- a", "```js", "x = 1", "```", "", "| a |", "|---|", "> q"), {
          maxLength: 20,
        }),
        fc.constantFrom("\n\nmore", "\nmore text"),
        (lines, tail) => {
          const text = lines.join("\n")
          const before = parseBlocks(text)
          const after = parseBlocks(text + tail)
          // Appending touches only the last block (or starts new ones): what is on screen above stays.
          for (const [i, block] of before.slice(0, -1).entries()) expect(after[i]!.source).toBe(block.source)
        },
      ),
    )
  })
})

describe("markdown inline", () => {
  it("reads emphasis, strong, strikethrough, code spans and links", () => {
    expect(
      show(parseInline("a *em* **strong** ***both*** ~~gone~~ `co*de*` [site](https://x.dev) <https://y.dev>")),
    ).toBe(
      "a <em:em> <strong:strong> <strong:<em:both>> <del:gone> <code:co*de*> [site](https://x.dev) [https://y.dev](https://y.dev)",
    )
    expect(show(parseInline("snake_case_name and *a **b** c*"))).toBe("snake_case_name and <em:a <strong:b> c>")
    expect(show(parseInline("see https://example.com/a_(b). next"))).toBe(
      "see [https://example.com/a_(b)](https://example.com/a_(b)). next",
    )
    expect(show(parseInline("unclosed **bold and `tick"))).toBe("unclosed **bold and `tick")
    expect(show(parseInline("line one\nline two"))).toBe("line one<br>line two")
  })

  it("keeps raw HTML as text", () => {
    expect(show(parseInline('<script>alert(1)</script> <img src=x onerror="alert(2)">'))).toBe(
      '<script>alert(1)</script> <img src=x onerror="alert(2)">',
    )
  })

  it("never makes a link of a javascript:, data: or vbscript: URL, however it is spelled", () => {
    const payloads = [
      "[x](javascript:alert(1))",
      "[x](JaVaScRiPt:alert(1))",
      "[x]( javascript:alert(1))",
      "[x](java\tscript:alert(1))",
      "[x](<javascript:alert(1)>)",
      "[x](\u0001javascript:alert(1))",
      "[x](data:text/html;base64,PHNjcmlwdD4=)",
      "[x](vbscript:msgbox(1))",
      "![x](javascript:alert(1))",
      "<javascript:alert(1)>",
      "<data:text/html,hi>",
      "[x](file:///etc/passwd)",
      "[a [b](javascript:1)](https://ok.dev)",
    ]
    for (const payload of payloads) {
      for (const href of links(parseInline(payload))) {
        if (href !== undefined) expect(href).toMatch(/^https:\/\/ok\.dev$/)
      }
    }
    expect(safeHref("https://ok.dev/a")).toBe("https://ok.dev/a")
    expect(safeHref("mailto:a@b.c")).toBe("mailto:a@b.c")
    expect(safeHref("docs/readme.md#top")).toBe("docs/readme.md#top")
    expect(safeHref("javascript&colon;alert(1)")).toBeUndefined()
  })

  it("parses any text without throwing, and a link's href is always safe", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."[]()<>*_~`\\:javscript htp/.!\n|#-".split("")) }), (text) => {
        for (const href of links(parseInline(text))) expect(href === undefined || safeHref(href) === href).toBe(true)
        parseBlocks(text)
      }),
    )
  })
})

describe("highlighting", () => {
  const cases = [
    [
      typescript,
      'const n: Answer = run("x", 42) // why',
      ["keyword", "type", "function", "string", "number", "comment"],
    ],
    [json, '{"key": "value", "n": 1.5, "ok": true}', ["property", "string", "number", "literal"]],
    [bash, 'echo "$HOME" --flag # note', ["function", "string", "property", "comment"]],
    [python, "def f(x):\n    return None  # done", ["keyword", "function", "literal", "comment"]],
    [go, 'func main() { fmt.Println("hi", 3) }', ["keyword", "function", "string", "number"]],
    [rust, 'fn main() { let s: String = format!("{}", 1u8); }', ["keyword", "function", "type", "string", "number"]],
    [diff, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx", ["meta", "hunk", "del", "add"]],
  ] as const
  it.each(cases)("%# colours its tokens and keeps the text exact", (grammar, code, kinds) => {
    const tokens = tokenize(code, grammar)
    expect(tokens.map((t) => t.text).join("")).toBe(code)
    for (const kind of kinds) expect(tokens.some((t) => t.kind === kind)).toBe(true)
  })
})
