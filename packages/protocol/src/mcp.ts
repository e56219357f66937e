import { McpServerStatus } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { commitsNothing, data } from "./envelope.ts"

/**
 * Addition: the configured MCP servers by name (`v2.mcp.status`), in upstream's `McpStatus` shape
 * (`connected`, `disabled`, `failed` with `error`) plus each server's transport and tools. Upstream serves
 * its status at `/mcp` outside the v2 API; this is its v2-style counterpart. Servers connect on first use:
 * a listing connects those not yet connected (a failed one is retried at most every 10 seconds).
 */
export class McpGroup extends HttpApiGroup.make("v2.mcp")
  .add(
    HttpApiEndpoint.get("status", "/api/mcp", {
      success: data(Schema.Record(Schema.String, McpServerStatus)),
    })
      .annotate(OpenApi.Summary, "MCP servers: connected, disabled or failed (and why), with their tools")
      .annotate(OpenApi.Override, commitsNothing),
  )
  .annotate(OpenApi.Description, "MCP servers") {}
