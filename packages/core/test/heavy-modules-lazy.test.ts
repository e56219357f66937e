import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const sources = (directory: string): Array<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })

/**
 * Modules a host may never need, each with the only files allowed to load them: the MCP SDK (no MCP
 * server configured) and tree-sitter (no bash call) by `import()`, turndown and domino in the webfetch
 * worker, which runs in a thread of its own.
 */
const HEAVY = [
  { module: "@modelcontextprotocol/", dynamic: ["core/src/mcp/sdk.ts"], static: [] },
  { module: "web-tree-sitter", dynamic: ["core/src/tool/bash-parser.ts"], static: [] },
  { module: "turndown", dynamic: [], static: ["core/src/tool/html-worker.ts"] },
  { module: "@mixmark-io/domino", dynamic: [], static: ["core/src/tool/html-worker.ts"] },
]

const files = ["core", "server", "plugin", "protocol", "schema"].flatMap((pkg) =>
  sources(join(root, pkg, "src")).map((file) => ({ name: relative(root, file), text: readFileSync(file, "utf8") })),
)
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

describe("heavy modules", () => {
  for (const heavy of HEAVY)
    it(`${heavy.module} is loaded only on first use (by import()), never when the host starts`, () => {
      // An asset path (`web-tree-sitter/tree-sitter.wasm`, imported as a file) is a path, not the library.
      const quoted = `["']${escape(heavy.module)}(?![^"']*\\.wasm["'])`
      // `import type` is erased; `import ... from` and `export ... from` are loaded with the module.
      const staticImport = new RegExp(`^\\s*(import|export)\\s+(?!type\\b)[^"'\`]*?from\\s+${quoted}`, "m")
      const dynamicImport = new RegExp(`import\\(\\s*${quoted}`)
      expect(files.filter((file) => staticImport.test(file.text)).map((file) => file.name)).toEqual(heavy.static)
      expect(files.filter((file) => dynamicImport.test(file.text)).map((file) => file.name)).toEqual(heavy.dynamic)
    })
})
