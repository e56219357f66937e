import { Schema } from "effect"
import { ModelRef } from "./model-request.ts"

/**
 * The transcript as stored and served. Every message and every part has a stable id: correction and
 * removal address parts by id, and ids never change.
 */

/** Who put a message into the transcript: `user`, `host`, or `plugin:<id>`. */
export const Origin = Schema.String.check(Schema.isPattern(/^(user|host|plugin:.+)$/))
export type Origin = typeof Origin.Type

export const TextPart = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("text"),
  text: Schema.String,
})
export type TextPart = typeof TextPart.Type

export const ReasoningPart = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("reasoning"),
  text: Schema.String,
})
export type ReasoningPart = typeof ReasoningPart.Type

export const ToolState = Schema.Literals(["running", "completed", "error"])

export const ToolPart = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("tool"),
  callID: Schema.String,
  tool: Schema.String,
  input: Schema.Unknown,
  state: ToolState,
  output: Schema.optional(Schema.String),
  error: Schema.optional(Schema.String),
  /** What the call did besides its output: `diff` (a unified diff) for edit, write and patch. */
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
})
export type ToolPart = typeof ToolPart.Type

export const Part = Schema.Union([TextPart, ReasoningPart, ToolPart])
export type Part = typeof Part.Type

/** Set on a retracted message; its content is gone from the projection, its id, seq and role stay. */
export const Retraction = Schema.Struct({ time: Schema.Number, by: Origin })

/**
 * Why an assistant message stopped early, recorded on the message. A plugin hook's failure also names the
 * plugin and the hook (`name` is then `Plugin.HookError`).
 */
export const MessageError = Schema.Struct({
  name: Schema.String,
  message: Schema.String,
  pluginID: Schema.optional(Schema.String),
  hook: Schema.optional(Schema.String),
})
export type MessageError = typeof MessageError.Type

export const Usage = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  reasoning: Schema.optional(Schema.Number),
})

const common = {
  id: Schema.String,
  sessionID: Schema.String,
  seq: Schema.Number,
  origin: Origin,
  parts: Schema.Array(Part),
  retracted: Schema.optional(Retraction),
  placeholder: Schema.optional(Schema.String),
}

/**
 * Set on input read while it waits behind a running turn (the inbox): its `seq` is 0 until delivery
 * assigns one. Retracting it cancels the delivery.
 */
const queued = { queued: Schema.optional(Schema.Literal(true)) }

export const UserMessage = Schema.Struct({
  ...common,
  ...queued,
  type: Schema.Literal("user"),
  time: Schema.Struct({ created: Schema.Number }),
  agent: Schema.optional(Schema.String),
  model: Schema.optional(ModelRef),
})
export type UserMessage = typeof UserMessage.Type

export const SyntheticMessage = Schema.Struct({
  ...common,
  ...queued,
  type: Schema.Literal("synthetic"),
  time: Schema.Struct({ created: Schema.Number }),
  description: Schema.optional(Schema.String),
})
export type SyntheticMessage = typeof SyntheticMessage.Type

export const AssistantMessage = Schema.Struct({
  ...common,
  type: Schema.Literal("assistant"),
  time: Schema.Struct({ created: Schema.Number, completed: Schema.optional(Schema.Number) }),
  turnID: Schema.String,
  agent: Schema.String,
  model: ModelRef,
  finish: Schema.optional(Schema.String),
  error: Schema.optional(MessageError),
  usage: Schema.optional(Usage),
  /** Ids of the parts removed from this message (removal, prune), so a repeated removal is recognised. */
  removedParts: Schema.optional(Schema.Array(Schema.String)),
})
export type AssistantMessage = typeof AssistantMessage.Type

export const Message = Schema.Union([UserMessage, SyntheticMessage, AssistantMessage])
export type Message = typeof Message.Type

/** A user or synthetic message as admitted, before it has a seq (it may wait in the inbox). */
export const InputMessage = Schema.Union([
  UserMessage.mapFields(({ seq: _, ...rest }) => rest),
  SyntheticMessage.mapFields(({ seq: _, ...rest }) => rest),
])
export type InputMessage = typeof InputMessage.Type
