import { Mcp } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

/** `v2.mcp.status`: every configured MCP server's state and tools (connecting those not yet connected). */
export const McpHandlers = HttpApiBuilder.group(
  Api,
  "v2.mcp",
  Effect.fn(function* (handlers) {
    const mcp = yield* Mcp
    return handlers.handle("status", () => Effect.map(mcp.status(), (servers) => ({ data: servers })))
  }),
)
