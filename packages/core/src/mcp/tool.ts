import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Schema } from "effect"
import { ToolError, type Tool, type ToolPlan } from "../tool/tool.ts"
import type { McpConnection } from "./connection.ts"

/** Model APIs accept tool names of letters, digits, `_` and `-` only. */
const safe = (name: string) => name.replace(/[^a-zA-Z0-9_-]/g, "_")

/** The id an MCP tool is offered under and matched by the `mcp` permission rules: `<server>_<tool>`. */
export const mcpToolId = (server: string, tool: string) => `${safe(server)}_${safe(tool)}`

/** MCP arguments are a JSON object; the server validates them against the schema it declared. */
const McpArguments = Schema.Record(Schema.String, Schema.Unknown)

/** The text the model sees for a result: text parts verbatim, other parts named, structured content as JSON. */
export const resultText = (result: CallToolResult): string => {
  const parts = (result.content ?? []).map((part) => {
    if (part.type === "text") return part.text
    if (part.type === "resource")
      return "text" in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`
    if (part.type === "resource_link") return `[resource ${part.uri}]`
    return `[${part.type}${"mimeType" in part ? ` ${part.mimeType}` : ""}]`
  })
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return parts.join("\n")
}

/**
 * One tool of an MCP server as a host tool: offered with the server's own JSON Schema, planned under the
 * `mcp` permission with its id as the pattern, and run on the server (connecting again if it went away).
 * A result flagged `isError` fails the call with the server's text.
 */
export const makeMcpTool = (
  connection: McpConnection,
  info: McpTool,
  id = mcpToolId(connection.name, info.name),
): Tool<Record<string, unknown>> => {
  const execute = (input: Record<string, unknown>, ctx: { readonly signal: AbortSignal }) =>
    Effect.tryPromise({
      try: (signal) => {
        // Either the turn's interrupt or the fiber's: both cancel the request on the server.
        const both = AbortSignal.any([signal, ctx.signal])
        return connection.call(info.name, input, both)
      },
      catch: (cause) => new ToolError({ tool: id, message: cause instanceof Error ? cause.message : String(cause) }),
    }).pipe(
      Effect.flatMap((result) =>
        result.isError
          ? Effect.fail(
              new ToolError({ tool: id, message: `MCP tool "${id}" reported an error: ${resultText(result)}` }),
            )
          : Effect.succeed(resultText(result)),
      ),
    )
  return {
    name: id,
    description: info.description ?? info.title ?? `${info.name} (MCP server "${connection.name}")`,
    input: McpArguments,
    parameters: { ...info.inputSchema, type: "object" },
    execute,
    plan: (input, ctx) =>
      Effect.succeed({
        permission: "mcp",
        patterns: [id],
        title: id,
        metadata: { mcp: { server: connection.name, tool: info.name } },
        run: () => Effect.map(execute(input, ctx), (output) => ({ output })),
      } satisfies ToolPlan),
  }
}
