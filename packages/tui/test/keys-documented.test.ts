import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { helpItems, KEYS } from "../src/keys.ts"

const doc = readFileSync(fileURLToPath(new URL("../../../docs/tui.md", import.meta.url)), "utf8")

describe("the keys", () => {
  it("docs/tui.md lists every key the ? overlay shows", () => {
    const rows = doc.split("\n").filter((line) => line.startsWith("| `"))
    for (const group of KEYS)
      for (const [key, what] of group.keys)
        expect(
          rows.some((row) => row.includes(`\`${key}\``) && row.includes(what)),
          key,
        ).toBe(true)
  })

  it("the ? overlay has a row per key and per command", () => {
    const items = helpItems([{ name: "exit", description: "leave" }])
    expect(items).toHaveLength(KEYS.reduce((n, g) => n + g.keys.length, 0) + 1)
    expect(items.map((i) => i.label.trim())).toContain("Ctrl+C twice")
    expect(items.at(-1)).toMatchObject({ label: expect.stringContaining("/exit"), detail: "leave" })
  })
})
