import type { McpServerStatus } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import type { ToolSource } from "../tool/registry.ts"
import type { Tool } from "../tool/tool.ts"
import { McpConnection } from "./connection.ts"
import { makeMcpTool, mcpToolId } from "./tool.ts"

/**
 * The configured MCP servers (`mcp` in `opencode.json`) as a tool source. Nothing connects at host start:
 * the first listing (the first model request, or a same-origin `GET /api/mcp`) connects every enabled
 * server in parallel, so start-up time does not depend on them. A server that fails is retried in the
 * background with capped exponential backoff. Servers are stopped when the host shuts down.
 */
export class Mcp extends Context.Service<
  Mcp,
  ToolSource & {
    /** Every configured server by name: connected, disabled or failed (and why), with its tools. */
    status(options?: { readonly connect?: boolean }): Effect.Effect<Readonly<Record<string, McpServerStatus>>>
  }
>()("@opencode-ai/core/mcp/Mcp") {
  static readonly layer = Layer.effect(
    Mcp,
    Effect.gen(function* () {
      const config = yield* Config
      const connections = Object.entries(config.data.mcp ?? {}).map(
        ([name, server]) => new McpConnection(name, server, config.directory),
      )
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => Promise.all(connections.map((connection) => connection.close()))),
      )

      // Tool objects are rebuilt only when a server's list changes, so a cached model tool list stays valid.
      const built = new Map<McpConnection, { readonly from: unknown; readonly tools: ReadonlyArray<Tool> }>()
      const toolsOf = (connection: McpConnection) => {
        const cached = built.get(connection)
        if (cached && cached.from === connection.tools) return cached.tools
        const tools = connection.tools.map((info) => makeMcpTool(connection, info))
        built.set(connection, { from: connection.tools, tools })
        return tools
      }

      const connectAll = (retry: boolean) =>
        Effect.promise(() => Promise.all(connections.map((connection) => connection.connect({ retry }))))

      // Only the tools of servers that connected are offered: one that never did offers nothing. One that
      // crashed after connecting keeps its last tools on offer (calling one reconnects it). A listing waits
      // for a server's first attempt only; a failed server is retried in the background, never by a turn.
      const tools = Effect.fn("Mcp.tools")(() =>
        connectAll(false).pipe(
          Effect.map(() =>
            connections
              .filter((c) => c.enabled && (c.connected || c.tools.length > 0))
              .flatMap((connection) => toolsOf(connection)),
          ),
        ),
      )

      const find = Effect.fn("Mcp.find")((name: string) =>
        Effect.map(tools(), (list) => list.find((tool) => tool.name === name)),
      )

      const status = Effect.fn("Mcp.status")((options: { readonly connect?: boolean } = {}) =>
        Effect.map(options.connect === false ? Effect.void : connectAll(false), () => {
          const out: Record<string, McpServerStatus> = {}
          for (const connection of connections) {
            const state: McpServerStatus["status"] = !connection.enabled
              ? "disabled"
              : connection.connected
                ? "connected"
                : "failed"
            out[connection.name] = {
              status: state,
              ...(state === "failed"
                ? { error: connection.error ?? (connection.started ? "not connected" : "not started yet") }
                : {}),
              type: connection.config.type,
              tools: connection.enabled
                ? connection.tools.map((tool) => ({
                    id: mcpToolId(connection.name, tool.name),
                    name: tool.name,
                    ...(tool.description !== undefined ? { description: tool.description } : {}),
                  }))
                : [],
            }
          }
          return out
        }),
      )

      const implementation = Mcp.of({ tools, find, status })
      return implementation
    }),
  )
}
