import type { McpServerStatus } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import type { ToolSource } from "../tool/registry.ts"
import { McpConnection } from "./connection.ts"
import { buildCatalog, type Catalog } from "./catalog.ts"
import { mcpToolId } from "./tool.ts"

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

      // The catalog is rebuilt only when a listed server's tool list changes, so a cached model tool list
      // stays valid. Problems (refused schemas, renamed ids) are logged once per rebuild.
      let catalog: { readonly from: ReadonlyArray<unknown>; readonly value: Catalog } | undefined
      const catalogOf = (listed: ReadonlyArray<McpConnection>) =>
        Effect.gen(function* () {
          const from = listed.flatMap((connection) => [connection, connection.tools])
          if (catalog && catalog.from.length === from.length && catalog.from.every((item, i) => item === from[i]))
            return catalog.value
          const value = buildCatalog(listed)
          catalog = { from, value }
          for (const lines of value.problems.values()) for (const line of lines) yield* Effect.logWarning(line)
          return value
        })

      const connectAll = (retry: boolean) =>
        Effect.promise(() => Promise.all(connections.map((connection) => connection.connect({ retry }))))

      // Only the tools of servers that connected are offered: one that never did offers nothing. One that
      // crashed after connecting keeps its last tools on offer (calling one reconnects it). A listing waits
      // for a server's first attempt only; a failed server is retried in the background, never by a turn.
      const listed = () => connections.filter((c) => c.enabled && (c.connected || c.tools.length > 0))
      const tools = Effect.fn("Mcp.tools")(() =>
        connectAll(false).pipe(
          Effect.flatMap(() => catalogOf(listed())),
          Effect.map((built) => built.tools),
        ),
      )

      const find = Effect.fn("Mcp.find")((name: string) =>
        Effect.map(tools(), (list) => list.find((tool) => tool.name === name)),
      )

      const status = Effect.fn("Mcp.status")((options: { readonly connect?: boolean } = {}) =>
        Effect.map(
          Effect.flatMap(options.connect === false ? Effect.void : connectAll(false), () => catalogOf(listed())),
          ({ problems }) => {
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
                  : problems.has(connection.name)
                    ? { error: problems.get(connection.name)!.join("; ") }
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
          },
        ),
      )

      const implementation = Mcp.of({ tools, find, status })
      return implementation
    }),
  )
}
