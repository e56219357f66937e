import { Schema } from "effect"

/** A tool an MCP server offers, as the model sees it: `<server>_<tool>`. */
export const McpToolInfo = Schema.Struct({
  /** The tool id offered to the model and matched by the `mcp` permission rules (`<server>_<tool>`). */
  id: Schema.String,
  /** The tool's name on its server. */
  name: Schema.String,
  description: Schema.optional(Schema.String),
}).annotate({ identifier: "McpToolInfo" })
export type McpToolInfo = typeof McpToolInfo.Type

/**
 * One configured MCP server: upstream's `McpStatus` (`connected`, `disabled`, `failed` with `error`) plus
 * the host's additions: the transport (`local` or `remote`) and the tools it offers (the last list it sent,
 * kept while it is reconnecting after a crash).
 */
export const McpServerStatus = Schema.Struct({
  status: Schema.Literals(["connected", "disabled", "failed"]),
  error: Schema.optional(Schema.String),
  type: Schema.Literals(["local", "remote"]),
  tools: Schema.Array(McpToolInfo),
}).annotate({ identifier: "McpServerStatus" })
export type McpServerStatus = typeof McpServerStatus.Type
