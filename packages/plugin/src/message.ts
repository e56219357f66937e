import { Schema } from "effect"

/**
 * The transcript and session shapes: what plugins read, what the host stores and serves over HTTP, and
 * what the SDK's types are generated from. Declared once, here. Every message and part has a stable id
 * that never changes, whatever corrections or removals happen.
 */

/** Who put a message into the transcript: `user`, `host`, or `plugin:<id>`. */
export const Origin = Schema.String.check(Schema.isPattern(/^(user|host|plugin:.+)$/))
export type Origin = typeof Origin.Type

/** A model, as `{ providerID, modelID }` (config writes it `"<providerID>/<modelID>"`). */
export const ModelRef = Schema.Struct({ providerID: Schema.String, modelID: Schema.String }).annotate({
  identifier: "ModelRef",
})
export type ModelRef = typeof ModelRef.Type

export const TextPart = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("text"),
  text: Schema.String,
}).annotate({ identifier: "TextPart" })
export type TextPart = typeof TextPart.Type

export const ReasoningPart = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("reasoning"),
  text: Schema.String,
}).annotate({ identifier: "ReasoningPart" })
export type ReasoningPart = typeof ReasoningPart.Type

export const ToolState = Schema.Literals(["running", "completed", "error"])
export type ToolState = typeof ToolState.Type

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
}).annotate({ identifier: "ToolPart" })
export type ToolPart = typeof ToolPart.Type

export const Part = Schema.Union([TextPart, ReasoningPart, ToolPart]).annotate({ identifier: "Part" })
export type Part = typeof Part.Type

/** Set on a retracted message; its content is gone from the projection, its id, seq and role stay. */
export const Retraction = Schema.Struct({ time: Schema.Number, by: Origin })
export type Retraction = typeof Retraction.Type

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
export type Usage = typeof Usage.Type

const common = {
  id: Schema.String,
  sessionID: Schema.String,
  seq: Schema.Number,
  origin: Origin,
  parts: Schema.Array(Part),
  /** Present once retracted: the content is gone, id/seq/role stay, `placeholder` is host-rendered. */
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
}).annotate({ identifier: "UserMessage" })
export type UserMessage = typeof UserMessage.Type

export const SyntheticMessage = Schema.Struct({
  ...common,
  ...queued,
  type: Schema.Literal("synthetic"),
  time: Schema.Struct({ created: Schema.Number }),
  description: Schema.optional(Schema.String),
}).annotate({ identifier: "SyntheticMessage" })
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
}).annotate({ identifier: "AssistantMessage" })
export type AssistantMessage = typeof AssistantMessage.Type

/**
 * A compaction: the host's summary (one text part) of the transcript up to and including seq `through`.
 * Model requests after it send the summary instead of those messages, then what follows; the messages
 * themselves stay stored and readable. `prompt` names the latest prompt when the summary had to cover it
 * too (one long turn): that prompt is still sent verbatim, after the summary.
 */
export const CompactionMessage = Schema.Struct({
  ...common,
  type: Schema.Literal("compaction"),
  time: Schema.Struct({ created: Schema.Number }),
  /** The seq of the last message the summary covers. */
  through: Schema.Number,
  /** The latest prompt, sent verbatim after the summary although `through` covers it. */
  prompt: Schema.optional(Schema.String),
  /** `auto` (the next request would not fit), `overflow` (the provider refused one) or `manual`. */
  reason: Schema.Literals(["auto", "overflow", "manual"]),
  /** The model that wrote the summary, and what the summary request cost. */
  model: ModelRef,
  usage: Schema.optional(Usage),
}).annotate({ identifier: "CompactionMessage" })
export type CompactionMessage = typeof CompactionMessage.Type

export const Message = Schema.Union([UserMessage, SyntheticMessage, AssistantMessage, CompactionMessage]).annotate({
  identifier: "Message",
})
export type Message = typeof Message.Type

/** A session as served: its row plus whether its execution claim is held. */
export const SessionInfo = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  directory: Schema.String,
  agent: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  seq: Schema.Number,
  time: Schema.Struct({ created: Schema.Number, updated: Schema.Number }),
  /**
   * `idle`, `busy` (a turn runs in this process), `retrying` (a turn waits to retry a failed model request) or
   * `suspended` (claim held, no turn running: awaiting resume).
   */
  status: Schema.Literals(["idle", "busy", "retrying", "suspended"]),
}).annotate({ identifier: "SessionInfo" })
export type SessionInfo = typeof SessionInfo.Type

/** One page of a cursor-paginated listing; `cursor` is present when more items follow. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), cursor: Schema.optional(Schema.String) })
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly cursor?: string
}
