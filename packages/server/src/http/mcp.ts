import { Mcp } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { isOwnOrigin } from "./cross-site.ts"

/**
 * Whether a read came from another site's page. Reads pass the cross-site rule (the page cannot see the
 * answer), but starting MCP servers is an effect, so such a read only reports what is already known.
 */
const foreign = (headers: Readonly<Record<string, string | undefined>>) => {
  if (headers["sec-fetch-site"] === "cross-site") return true
  const origin = headers["origin"]
  return origin !== undefined && !isOwnOrigin(origin, headers["host"] ?? null)
}

/**
 * `v2.mcp.status`: every configured MCP server's state and tools, connecting those not yet tried, except
 * for a request from a foreign origin, which starts nothing.
 */
export const McpHandlers = HttpApiBuilder.group(
  Api,
  "v2.mcp",
  Effect.fn(function* (handlers) {
    const mcp = yield* Mcp
    return handlers.handle("status", () =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const servers = yield* mcp.status({ connect: !foreign(request.headers) })
        return { data: servers }
      }),
    )
  }),
)
