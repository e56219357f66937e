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

describe("the MCP SDK", () => {
  it("is imported at run time only by mcp/sdk.ts, and there only with import(): a host without MCP servers never loads it", () => {
    const loaders: Array<string> = []
    const staticImports: Array<string> = []
    for (const pkg of ["core", "server", "plugin", "protocol", "schema"])
      for (const file of sources(join(root, pkg, "src"))) {
        const text = readFileSync(file, "utf8")
        const name = relative(root, file)
        // `import type` is erased; `import ... from` and `export ... from` are loaded with the module.
        for (const match of text.matchAll(/^\s*(import|export)\s+(?!type\b)[^;]*?from\s+["']@modelcontextprotocol\//gm))
          staticImports.push(`${name}: ${match[0].trim().slice(0, 80)}`)
        if (/import\(\s*["']@modelcontextprotocol\//.test(text)) loaders.push(name)
      }
    expect(staticImports).toEqual([])
    expect(loaders).toEqual(["core/src/mcp/sdk.ts"])
  })
})
