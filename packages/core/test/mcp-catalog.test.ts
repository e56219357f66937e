import { describe, expect, it } from "vitest"
import { buildCatalog, MCP_SCHEMA_MAX_DEPTH, nestsDeeperThan } from "../src/mcp/catalog.ts"
import type { McpConnection } from "../src/mcp/connection.ts"

/** What the catalog reads of a connection: its name and the tools it last listed. */
const server = (name: string, tools: ReadonlyArray<{ name: string; inputSchema: unknown }>) =>
  ({ name, tools }) as unknown as McpConnection

/** An object schema nested `depth` levels, built without recursion. */
const nested = (depth: number) => {
  let schema: Record<string, unknown> = { type: "object" }
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { inner: schema } }
  return schema
}

describe("the MCP tool catalog", () => {
  it("refuses a schema nested 100,000 levels, naming the server and the tool, without overflowing the stack", () => {
    const catalog = buildCatalog([
      server("deep", [
        { name: "abyss", inputSchema: nested(100_000) },
        { name: "fine", inputSchema: nested(3) },
      ]),
    ])
    expect(catalog.tools.map((tool) => tool.name)).toEqual(["deep_fine"])
    expect(catalog.problems.get("deep")).toEqual([
      `tool "abyss" of MCP server "deep" refused: its input schema nests deeper than ${MCP_SCHEMA_MAX_DEPTH} levels`,
    ])
  })

  it("measures depth at the limit exactly", () => {
    expect(nestsDeeperThan({ a: { b: 1 } }, 2)).toBe(false)
    expect(nestsDeeperThan({ a: { b: {} } }, 2)).toBe(true)
    expect(nestsDeeperThan([[[]]], 3)).toBe(false)
  })

  it("disambiguates colliding ids (a/b and a.b, and across servers) and reports each rename", () => {
    const schema = { type: "object" }
    const catalog = buildCatalog([
      server("srv", [
        { name: "a/b", inputSchema: schema },
        { name: "a.b", inputSchema: schema },
      ]),
      server("srv_a", [{ name: "b", inputSchema: schema }]),
    ])
    expect(catalog.tools.map((tool) => tool.name)).toEqual(["srv_a_b", "srv_a_b_2", "srv_a_b_3"])
    expect(catalog.problems.get("srv")).toEqual([
      'tool "a.b" of MCP server "srv" is offered as "srv_a_b_2": "srv_a_b" is tool "a/b" of MCP server "srv"',
    ])
    expect(catalog.problems.get("srv_a")).toEqual([
      'tool "b" of MCP server "srv_a" is offered as "srv_a_b_3": "srv_a_b" is tool "a/b" of MCP server "srv"',
    ])
  })
})
