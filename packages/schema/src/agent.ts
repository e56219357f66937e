import { Schema } from "effect"
import { ModelRef } from "./model.ts"
import { PermissionRule } from "./permission.ts"

/** Extra headers and body fields an agent or model adds to its provider requests. */
export const ProviderRequest = Schema.Struct({
  headers: Schema.Record(Schema.String, Schema.String),
  body: Schema.Record(Schema.String, Schema.Unknown),
}).annotate({ identifier: "ProviderRequest" })

/**
 * An agent: upstream's `AgentV2Info`. `mode` says where it may run: `primary` (picked for a session or a
 * prompt), `subagent` (only through the `task` tool), `all` (both).
 */
export const AgentInfo = Schema.Struct({
  id: Schema.String,
  model: Schema.optional(ModelRef),
  request: ProviderRequest,
  system: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mode: Schema.Literals(["subagent", "primary", "all"]),
  hidden: Schema.Boolean,
  color: Schema.optional(Schema.String),
  steps: Schema.optional(Schema.Number),
  permissions: Schema.Array(PermissionRule),
}).annotate({ identifier: "AgentV2Info" })
export type AgentInfo = typeof AgentInfo.Type
