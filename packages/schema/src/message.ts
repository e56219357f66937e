import { Schema } from "effect"
import { ModelRef, Tokens } from "./model.ts"
import { Origin } from "./origin.ts"
import { PromptAgentAttachment, PromptFileAttachment, PromptSubtask } from "./prompt.ts"

/**
 * The transcript: upstream OpenCode v2's `SessionMessage` union, plus what this host adds as extra fields
 * (never in place of an upstream field): where each message sits (`sessionID`, `seq`), who put it there
 * (`origin`), whether it was retracted, edited or is still queued. Every message and every assistant
 * content item has a stable `id` that no correction, removal or retraction changes.
 */

const Metadata = Schema.Record(Schema.String, Schema.Unknown)

/** A message's or item's retraction/correction stamp: when, and by whom. */
export const Change = Schema.Struct({ time: Schema.Number, by: Origin }).annotate({ identifier: "Change" })
export type Change = typeof Change.Type

/** What every message carries, upstream's fields first. */
const base = {
  id: Schema.String,
  metadata: Schema.optional(Metadata),
  /** The session the message belongs to. */
  sessionID: Schema.String,
  /**
   * The seq of the event that put it into the transcript; 0 while it waits in the inbox (`queued`), since
   * its place is decided on delivery.
   */
  seq: Schema.Number,
  origin: Origin,
  /** Set once retracted: the content is gone, id/seq/role stay, and `placeholder` says so (host-rendered). */
  retracted: Schema.optional(Change),
  placeholder: Schema.optional(Schema.String),
  /** Set when a text was corrected after it was written. */
  corrected: Schema.optional(Change),
}

/** Input that waits behind a running turn; retracting it cancels its delivery. */
const queued = { queued: Schema.optional(Schema.Literal(true)) }

const created = Schema.Struct({ created: Schema.Number })

export const UserMessage = Schema.Struct({
  ...base,
  ...queued,
  type: Schema.Literal("user"),
  time: created,
  text: Schema.String,
  files: Schema.optional(Schema.Array(PromptFileAttachment)),
  agents: Schema.optional(Schema.Array(PromptAgentAttachment)),
  /** The agent and model this prompt asked for, if it chose. */
  agent: Schema.optional(Schema.String),
  model: Schema.optional(ModelRef),
  /** Set when the prompt invoked a `subtask: true` command, run by a subagent in a child session. */
  subtask: Schema.optional(PromptSubtask),
}).annotate({ identifier: "SessionMessageUser" })
export type UserMessage = typeof UserMessage.Type

/** A notice: the host's or a plugin's text for the model, shown in the transcript. */
export const SyntheticMessage = Schema.Struct({
  ...base,
  ...queued,
  type: Schema.Literal("synthetic"),
  time: created,
  text: Schema.String,
  description: Schema.optional(Schema.String),
}).annotate({ identifier: "SessionMessageSynthetic" })
export type SyntheticMessage = typeof SyntheticMessage.Type

export const SystemMessage = Schema.Struct({
  ...base,
  type: Schema.Literal("system"),
  time: created,
  text: Schema.String,
}).annotate({ identifier: "SessionMessageSystem" })
export type SystemMessage = typeof SystemMessage.Type

export const ShellMessage = Schema.Struct({
  ...base,
  type: Schema.Literal("shell"),
  time: Schema.Struct({ created: Schema.Number, completed: Schema.optional(Schema.Number) }),
  callID: Schema.String,
  command: Schema.String,
  output: Schema.String,
}).annotate({ identifier: "SessionMessageShell" })
export type ShellMessage = typeof ShellMessage.Type

export const AgentSwitchedMessage = Schema.Struct({
  ...base,
  type: Schema.Literal("agent-switched"),
  time: created,
  agent: Schema.String,
}).annotate({ identifier: "SessionMessageAgentSwitched" })
export type AgentSwitchedMessage = typeof AgentSwitchedMessage.Type

export const ModelSwitchedMessage = Schema.Struct({
  ...base,
  type: Schema.Literal("model-switched"),
  time: created,
  model: ModelRef,
}).annotate({ identifier: "SessionMessageModelSwitched" })
export type ModelSwitchedMessage = typeof ModelSwitchedMessage.Type

/**
 * Why something failed, as stored. Upstream's `{ type: "unknown", message }`, plus a `name` (the failure's
 * tag, e.g. `Interrupted`, `Provider.Error`, `Plugin.HookError`) and, for a hook failure, the plugin and hook.
 */
export const ErrorInfo = Schema.Struct({
  type: Schema.Literal("unknown"),
  message: Schema.String,
  name: Schema.optional(Schema.String),
  pluginID: Schema.optional(Schema.String),
  hook: Schema.optional(Schema.String),
}).annotate({ identifier: "SessionErrorUnknown" })
export type ErrorInfo = typeof ErrorInfo.Type

const ProviderMetadata = Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))

export const TextItem = Schema.Struct({
  type: Schema.Literal("text"),
  id: Schema.String,
  text: Schema.String,
  corrected: Schema.optional(Change),
}).annotate({ identifier: "SessionMessageAssistantText" })
export type TextItem = typeof TextItem.Type

export const ReasoningItem = Schema.Struct({
  type: Schema.Literal("reasoning"),
  id: Schema.String,
  text: Schema.String,
  providerMetadata: Schema.optional(ProviderMetadata),
  time: Schema.optional(Schema.Struct({ created: Schema.Number, completed: Schema.optional(Schema.Number) })),
}).annotate({ identifier: "SessionMessageAssistantReasoning" })
export type ReasoningItem = typeof ReasoningItem.Type

export const ToolTextContent = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }).annotate({
  identifier: "ToolTextContent",
})
export const ToolFileContent = Schema.Struct({
  type: Schema.Literal("file"),
  uri: Schema.String,
  mime: Schema.String,
  name: Schema.optional(Schema.String),
}).annotate({ identifier: "ToolFileContent" })
export const ToolContent = Schema.Union([ToolTextContent, ToolFileContent]).annotate({ identifier: "LlmToolContent" })
export type ToolContent = typeof ToolContent.Type

const Structured = Schema.Record(Schema.String, Schema.Unknown)
const ToolInput = Schema.Record(Schema.String, Schema.Unknown)

export const ToolStatePending = Schema.Struct({
  status: Schema.Literal("pending"),
  /** The input as streamed so far (raw JSON text). */
  input: Schema.String,
}).annotate({ identifier: "SessionMessageToolStatePending" })

export const ToolStateRunning = Schema.Struct({
  status: Schema.Literal("running"),
  input: ToolInput,
  structured: Structured,
  content: Schema.Array(ToolContent),
}).annotate({ identifier: "SessionMessageToolStateRunning" })

/**
 * A finished call. `content` is what the model reads back; `structured` is what the call did besides (for
 * edit, write and patch: `diff`, a unified diff).
 */
export const ToolStateCompleted = Schema.Struct({
  status: Schema.Literal("completed"),
  input: ToolInput,
  attachments: Schema.optional(Schema.Array(PromptFileAttachment)),
  content: Schema.Array(ToolContent),
  outputPaths: Schema.optional(Schema.Array(Schema.String)),
  structured: Structured,
  result: Schema.optional(Schema.Unknown),
}).annotate({ identifier: "SessionMessageToolStateCompleted" })

export const ToolStateError = Schema.Struct({
  status: Schema.Literal("error"),
  input: ToolInput,
  content: Schema.Array(ToolContent),
  structured: Structured,
  error: ErrorInfo,
  result: Schema.optional(Schema.Unknown),
}).annotate({ identifier: "SessionMessageToolStateError" })

export const ToolState = Schema.Union([ToolStatePending, ToolStateRunning, ToolStateCompleted, ToolStateError])
export type ToolState = typeof ToolState.Type

/**
 * A tool call and its result. `id` is the host's item id (`prt_...`, what mutations address); `callID` is
 * the provider's call id (what the `session.next.tool.*` events address). A pruned call keeps its item,
 * name and status with its input and output emptied and `time.pruned` set.
 */
export const ToolItem = Schema.Struct({
  type: Schema.Literal("tool"),
  id: Schema.String,
  callID: Schema.String,
  name: Schema.String,
  /** A one-line summary of the call, for display (e.g. `edit a.ts`). */
  title: Schema.optional(Schema.String),
  provider: Schema.optional(
    Schema.Struct({
      executed: Schema.Boolean,
      metadata: Schema.optional(ProviderMetadata),
      resultMetadata: Schema.optional(ProviderMetadata),
    }),
  ),
  state: ToolState,
  time: Schema.Struct({
    created: Schema.Number,
    ran: Schema.optional(Schema.Number),
    completed: Schema.optional(Schema.Number),
    pruned: Schema.optional(Schema.Number),
  }),
  /** Who pruned it. */
  prunedBy: Schema.optional(Origin),
}).annotate({ identifier: "SessionMessageAssistantTool" })
export type ToolItem = typeof ToolItem.Type

export const AssistantItem = Schema.Union([TextItem, ReasoningItem, ToolItem]).annotate({
  identifier: "SessionMessageAssistantItem",
})
export type AssistantItem = typeof AssistantItem.Type

/** One model request's answer (a step of a turn). */
export const AssistantMessage = Schema.Struct({
  ...base,
  type: Schema.Literal("assistant"),
  time: Schema.Struct({ created: Schema.Number, completed: Schema.optional(Schema.Number) }),
  agent: Schema.String,
  model: ModelRef,
  content: Schema.Array(AssistantItem),
  snapshot: Schema.optional(
    Schema.Struct({
      start: Schema.optional(Schema.String),
      end: Schema.optional(Schema.String),
      files: Schema.optional(Schema.Array(Schema.String)),
    }),
  ),
  finish: Schema.optional(Schema.String),
  cost: Schema.optional(Schema.Number),
  tokens: Schema.optional(Tokens),
  error: Schema.optional(ErrorInfo),
  /** The turn this step belongs to. */
  turnID: Schema.String,
  /** Ids of the reasoning items removed from `content`, so a repeated removal is recognised. */
  removed: Schema.optional(Schema.Array(Schema.String)),
}).annotate({ identifier: "SessionMessageAssistant" })
export type AssistantMessage = typeof AssistantMessage.Type

/**
 * A compaction: the host's summary of the transcript up to and including seq `through`. Model requests
 * after it send `summary`, then what follows; the earlier messages stay stored and readable.
 */
export const CompactionMessage = Schema.Struct({
  ...base,
  type: Schema.Literal("compaction"),
  time: created,
  /** `auto` (the next request would not fit, or the provider refused one: then `overflow`) or `manual`. */
  reason: Schema.Literals(["auto", "manual"]),
  overflow: Schema.optional(Schema.Literal(true)),
  summary: Schema.String,
  /** The latest prompt, sent verbatim after the summary although `through` covers it ("" when none). */
  recent: Schema.String,
  /** The message `recent` was taken from; requests send that message as it stands now. */
  promptID: Schema.optional(Schema.String),
  through: Schema.Number,
  /** The model that wrote the summary, and what the summary request cost. */
  model: Schema.optional(ModelRef),
  tokens: Schema.optional(Tokens),
}).annotate({ identifier: "SessionMessageCompaction" })
export type CompactionMessage = typeof CompactionMessage.Type

export const SessionMessage = Schema.Union([
  AgentSwitchedMessage,
  ModelSwitchedMessage,
  UserMessage,
  SyntheticMessage,
  SystemMessage,
  ShellMessage,
  AssistantMessage,
  CompactionMessage,
]).annotate({ identifier: "SessionMessage" })
export type SessionMessage = typeof SessionMessage.Type

/** The message types a client or plugin may put into a transcript as input. */
export type InputMessage = UserMessage | SyntheticMessage
