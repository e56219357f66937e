import type { Tool } from "../tool/tool.ts"
import type { McpConnection } from "./connection.ts"
import { makeMcpTool, mcpToolId } from "./tool.ts"

/** How deeply an MCP tool's input schema may nest (objects and arrays); a deeper one is refused. */
export const MCP_SCHEMA_MAX_DEPTH = 64

/** Whether a JSON value nests deeper than `limit`, walked without recursion (no stack to overflow). */
export const nestsDeeperThan = (root: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[root, 1]]
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (depth > limit) return true
    if (typeof value !== "object" || value === null) continue
    for (const child of Object.values(value))
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
  }
  return false
}

/** The tools offered from the servers' lists, and what was refused or renamed, per server. */
export interface Catalog {
  readonly tools: ReadonlyArray<Tool>
  /** Per server name: one line per refused or renamed tool (reported in its status and logged). */
  readonly problems: ReadonlyMap<string, ReadonlyArray<string>>
}

/**
 * Builds the offered tools of the given servers, in order. A tool whose schema nests deeper than
 * `MCP_SCHEMA_MAX_DEPTH` is refused, naming the server and the tool. Tool ids are `<server>_<tool>` with
 * unsafe characters as `_`, so `a/b` and `a.b` (or server `a_b` tool `c` and server `a` tool `b_c`) would
 * collide: the first keeps the id, each later one gets `_2`, `_3`... and the rename is reported.
 */
export const buildCatalog = (connections: ReadonlyArray<McpConnection>): Catalog => {
  const tools: Array<Tool> = []
  const problems = new Map<string, Array<string>>()
  const report = (server: string, line: string) => {
    const list = problems.get(server) ?? []
    list.push(line)
    problems.set(server, list)
  }
  const taken = new Map<string, string>()
  for (const connection of connections) {
    for (const info of connection.tools) {
      if (nestsDeeperThan(info.inputSchema, MCP_SCHEMA_MAX_DEPTH)) {
        report(
          connection.name,
          `tool "${info.name}" of MCP server "${connection.name}" refused: its input schema nests deeper than ${MCP_SCHEMA_MAX_DEPTH} levels`,
        )
        continue
      }
      const base = mcpToolId(connection.name, info.name)
      let id = base
      for (let n = 2; taken.has(id); n++) id = `${base}_${n}`
      if (id !== base)
        report(
          connection.name,
          `tool "${info.name}" of MCP server "${connection.name}" is offered as "${id}": "${base}" is ${taken.get(base)}`,
        )
      taken.set(id, `tool "${info.name}" of MCP server "${connection.name}"`)
      tools.push(makeMcpTool(connection, info, id))
    }
  }
  return { tools, problems }
}
