import { describe, expect, it } from "vitest"
import { highlightLine, languageOf } from "../src/view/highlight.ts"
import { markdown } from "../src/view/markdown.ts"
import { color, plain } from "../src/view/style.ts"

const spanOf = (line: ReadonlyArray<{ text: string }>, text: string) => line.find((s) => s.text === text)

describe("markdown in the terminal", () => {
  it("renders headings, emphasis, inline code, links and lists", () => {
    const lines = markdown(
      "# Title\nsome **bold** and *italic* with `code`\n- one\n- [x] done\n1. first\n> quoted\nsee [docs](https://example.com/a)",
    )
    expect(plain(lines)).toBe(
      "Title\nsome bold and italic with code\n• one\n☑ done\n1. first\n▎ quoted\nsee docs (https://example.com/a)",
    )
    expect(lines[0]![0]).toMatchObject({ bold: true, underline: true })
    expect(spanOf(lines[1]!, "bold")).toMatchObject({ bold: true })
    expect(spanOf(lines[1]!, "italic")).toMatchObject({ italic: true })
    expect(spanOf(lines[1]!, "code")).toMatchObject({ fg: color.number })
    expect(spanOf(lines[6]!, "docs")).toMatchObject({ underline: true, link: "https://example.com/a" })
  })

  it("leaves raw HTML as text", () => {
    expect(plain(markdown("<script>alert(1)</script>"))).toBe("<script>alert(1)</script>")
  })

  it("highlights fenced code per language, and an unclosed fence as far as it goes", () => {
    const lines = markdown("```ts\nconst x = 42 // answer\n```\nafter\n```python\ndef f():")
    expect(plain(lines)).toBe("┌ ts\n│ const x = 42 // answer\nafter\n┌ python\n│ def f():")
    expect(spanOf(lines[1]!, "const")).toMatchObject({ fg: color.keyword })
    expect(spanOf(lines[1]!, "42")).toMatchObject({ fg: color.number })
    expect(spanOf(lines[1]!, "// answer")).toMatchObject({ fg: color.comment })
    expect(spanOf(lines[4]!, "def")).toMatchObject({ fg: color.keyword })
  })

  it("knows ts, js, json, bash, python and diff", () => {
    for (const name of ["ts", "typescript", "js", "json", "bash", "sh", "python", "py", "diff"])
      expect(languageOf(name), name).toBeDefined()
    expect(languageOf("cobol")).toBeUndefined()
    expect(highlightLine('{"a": true, "b": 1}', "json").find((s) => s.text === '"a"')).toMatchObject({
      fg: color.string,
    })
    expect(highlightLine("echo hi # note", "bash").at(-1)).toMatchObject({ text: "# note", fg: color.comment })
    expect(highlightLine("+added", "diff")[0]).toMatchObject({ fg: color.add })
    expect(highlightLine("-gone", "diff")[0]).toMatchObject({ fg: color.remove })
  })
})
