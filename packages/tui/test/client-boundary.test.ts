import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const SRC = fileURLToPath(new URL("../src", import.meta.url))
const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : []
  })

/** What the TUI may import: the public SDK, the shared transcript fold, its terminal library, itself. */
const ALLOWED = /^(\.{1,2}\/|@opencode-ai\/sdk\/v2$|@opencode-ai\/schema\/transcript$|@opentui\/core$)/

describe("the TUI is a client of the public API", () => {
  it("imports only the SDK, the transcript fold and OpenTUI, and makes no HTTP call of its own", () => {
    const sources = files(SRC)
    expect(sources.length).toBeGreaterThan(5)
    for (const file of sources) {
      const text = readFileSync(file, "utf8")
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g))
        expect(specifier, `${file} imports ${specifier}`).toMatch(ALLOWED)
      expect(text, file).not.toMatch(/\bfetch\s*\(|\/api\//)
    }
  })
})
