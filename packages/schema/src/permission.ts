import { Schema } from "effect"

export const PermissionReply = Schema.Literals(["once", "always", "reject"]).annotate({
  identifier: "PermissionV2Reply",
})
export type PermissionReply = typeof PermissionReply.Type

export const PermissionSource = Schema.Struct({
  type: Schema.Literal("tool"),
  messageID: Schema.String,
  callID: Schema.String,
}).annotate({ identifier: "PermissionV2Source" })
export type PermissionSource = typeof PermissionSource.Type

/**
 * A pending permission request: upstream's `PermissionV2Request`. `action` is the permission kind (`edit`,
 * `bash`, `read`, ...), `resources` what the rules matched (file paths relative to the session directory,
 * or the normalised commands), `save` what an `always` answer would allow from then on. `metadata` carries
 * what a user needs to decide (`diff` for file changes, `input`, `title`); `tool` names the tool.
 */
export const PermissionRequest = Schema.Struct({
  id: Schema.String,
  sessionID: Schema.String,
  action: Schema.String,
  resources: Schema.Array(Schema.String),
  save: Schema.optional(Schema.Array(Schema.String)),
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  source: Schema.optional(PermissionSource),
  tool: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  time: Schema.optional(Schema.Number),
}).annotate({ identifier: "PermissionV2Request" })
export type PermissionRequest = typeof PermissionRequest.Type

/** `allow`, `ask` or `deny` for one action and resource pattern. */
export const PermissionRule = Schema.Struct({
  action: Schema.String,
  resource: Schema.String,
  effect: Schema.Literals(["allow", "deny", "ask"]),
}).annotate({ identifier: "PermissionV2Rule" })
export type PermissionRule = typeof PermissionRule.Type
