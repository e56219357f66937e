import { Schema } from "effect"

/** The span of the prompt text an attachment was written as (e.g. `@src/a.ts`). */
export const PromptSource = Schema.Struct({
  start: Schema.Number,
  end: Schema.Number,
  text: Schema.String,
}).annotate({ identifier: "PromptSource" })

/** A file attached to a stored prompt: its `file://` URI inside the session's location, and its media type. */
export const PromptFileAttachment = Schema.Struct({
  uri: Schema.String,
  mime: Schema.String,
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  source: Schema.optional(PromptSource),
}).annotate({ identifier: "PromptFileAttachment" })
export type PromptFileAttachment = typeof PromptFileAttachment.Type

/** An agent mentioned in a prompt. */
export const PromptAgentAttachment = Schema.Struct({
  name: Schema.String,
  source: Schema.optional(PromptSource),
}).annotate({ identifier: "PromptAgentAttachment" })
export type PromptAgentAttachment = typeof PromptAgentAttachment.Type

/**
 * A prompt that invoked a `subtask: true` command: its text is the task a subagent runs in a child session
 * (the host's addition; upstream v1 calls this a subtask part).
 */
export const PromptSubtask = Schema.Struct({
  /** The subagent that runs it: the command's `agent`, else `general`. */
  agent: Schema.String,
  /** The task's short description: the command's `description`, else `/name`. */
  description: Schema.String,
  /** The command's name. */
  command: Schema.String,
}).annotate({ identifier: "PromptSubtask" })
export type PromptSubtask = typeof PromptSubtask.Type

/** A prompt as stored: its text and what it attached. */
export const Prompt = Schema.Struct({
  text: Schema.String,
  files: Schema.optional(Schema.Array(PromptFileAttachment)),
  agents: Schema.optional(Schema.Array(PromptAgentAttachment)),
}).annotate({ identifier: "Prompt" })
export type Prompt = typeof Prompt.Type

/** A file attachment as a client sends it; the host resolves its media type. */
export const PromptInputFileAttachment = Schema.Struct({
  uri: Schema.String,
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  source: Schema.optional(PromptSource),
}).annotate({ identifier: "PromptInputFileAttachment" })
export type PromptInputFileAttachment = typeof PromptInputFileAttachment.Type

/** A prompt as a client sends it. */
export const PromptInput = Schema.Struct({
  text: Schema.String,
  files: Schema.optional(Schema.Array(PromptInputFileAttachment)),
  agents: Schema.optional(Schema.Array(PromptAgentAttachment)),
}).annotate({ identifier: "PromptInput" })
export type PromptInput = typeof PromptInput.Type

/**
 * How input meets a running turn: `steer` joins at the next step boundary of the running turn, `queue`
 * waits for the turn to end. Between turns both start a turn at once.
 */
export const Delivery = Schema.Literals(["steer", "queue"])
export type Delivery = typeof Delivery.Type

/**
 * An input the host accepted: upstream's `SessionInputAdmitted`. `admittedSeq` is the seq of the event that
 * accepted it (into the transcript, or into the inbox behind a running turn); `id` is its message id.
 */
export const InputAdmitted = Schema.Struct({
  admittedSeq: Schema.Number,
  id: Schema.String,
  sessionID: Schema.String,
  prompt: Prompt,
  delivery: Delivery,
  timeCreated: Schema.Number,
  promotedSeq: Schema.optional(Schema.Number),
  /** Whether it waits behind a running turn (readable and retractable by id meanwhile). */
  queued: Schema.Boolean,
}).annotate({ identifier: "SessionInputAdmitted" })
export type InputAdmitted = typeof InputAdmitted.Type
