import { Schema } from "effect"

/**
 * What a tool call that needs permission asks, field by field: journaled in `session.permission.asked`
 * and served as a `PermissionRequest`, so the two can never drift apart.
 */
export const AskFields = {
  messageID: Schema.String,
  partID: Schema.String,
  callID: Schema.String,
  tool: Schema.String,
  /** The rule kind the call falls under: `read`, `edit` or `bash`. */
  permission: Schema.String,
  title: Schema.String,
  patterns: Schema.Array(Schema.String),
  /** What the call would do (`diff` for file changes). */
  metadata: Schema.Record(Schema.String, Schema.Unknown),
  /** The stored call, run once the ask is answered. */
  input: Schema.Unknown,
}
