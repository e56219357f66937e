import { Schema } from "effect"
import { durable, ephemeral } from "../bus/event.ts"
import { AskFields } from "../permission/ask.ts"
import { CompactionInput, InputMessage, MessageError, Origin, Part, Usage } from "./message.ts"
import { ModelRef } from "./model-request.ts"

/**
 * Every state change of a session, as durable versioned events. The projection (`session`,
 * `session_message`, `session_execution`, `session_inbox`) is a pure function of these events, which is
 * what makes replay from the journal reproduce it exactly.
 */
export namespace SessionEvent {
  export const Created = durable(
    "session.created",
    1,
    Schema.Struct({
      title: Schema.String,
      directory: Schema.String,
      agent: Schema.optional(Schema.String),
      model: Schema.optional(Schema.String),
    }),
  )

  export const Renamed = durable("session.renamed", 1, Schema.Struct({ title: Schema.String }))

  export const Deleted = durable("session.deleted", 1, Schema.Struct({}))

  /** Input admitted while the session was busy: parked in the inbox until the next turn boundary. */
  export const InputQueued = durable(
    "session.input.queued",
    1,
    Schema.Struct({ message: InputMessage, wake: Schema.Boolean }),
  )

  /** A user or synthetic message entering the transcript (directly, or delivered from the inbox). */
  export const MessageAdmitted = durable("session.message.admitted", 1, Schema.Struct({ message: InputMessage }))

  export const TurnReason = Schema.Literals(["prompt", "synthetic", "resume", "continue", "compact"])

  /** A turn takes the execution claim. */
  export const TurnStarted = durable(
    "session.turn.started",
    1,
    Schema.Struct({ turnID: Schema.String, reason: TurnReason }),
  )

  /** A claimed turn is resumed after a restart or on request; attempts are counted here, durably. */
  export const TurnResumed = durable(
    "session.turn.resumed",
    1,
    Schema.Struct({ turnID: Schema.String, attempt: Schema.Number }),
  )

  /** A turn releases the execution claim. */
  export const TurnEnded = durable(
    "session.turn.ended",
    1,
    Schema.Struct({
      turnID: Schema.String,
      outcome: Schema.Literals(["completed", "interrupted", "failed"]),
      error: Schema.optional(MessageError),
    }),
  )

  export const AssistantStarted = durable(
    "session.assistant.started",
    1,
    Schema.Struct({ messageID: Schema.String, turnID: Schema.String, agent: Schema.String, model: ModelRef }),
  )

  /** Inserts or replaces one part of an in-progress assistant message (by part id). */
  export const PartUpdated = durable("session.part.updated", 1, Schema.Struct({ messageID: Schema.String, part: Part }))

  export const AssistantCompleted = durable(
    "session.assistant.completed",
    1,
    Schema.Struct({
      messageID: Schema.String,
      finish: Schema.optional(Schema.String),
      error: Schema.optional(MessageError),
      usage: Schema.optional(Usage),
    }),
  )

  /** A text part's text replaced; ids, role and seq unchanged. */
  export const MessageCorrected = durable(
    "session.message.corrected",
    1,
    Schema.Struct({ messageID: Schema.String, partID: Schema.String, text: Schema.String, by: Origin }),
  )

  /** A user or synthetic message retracted behind the host-rendered placeholder. */
  export const MessageRetracted = durable(
    "session.message.retracted",
    1,
    Schema.Struct({ messageID: Schema.String, placeholder: Schema.String, by: Origin }),
  )

  /** A tool or reasoning part removed from a completed assistant message. */
  export const PartRemoved = durable(
    "session.part.removed",
    1,
    Schema.Struct({ messageID: Schema.String, partID: Schema.String, by: Origin }),
  )

  /** Batch prune: the listed tool/reasoning parts leave their completed assistant messages. */
  export const Pruned = durable(
    "session.pruned",
    1,
    Schema.Struct({
      types: Schema.Array(Schema.Literals(["tool", "reasoning"])),
      messages: Schema.Array(Schema.Struct({ messageID: Schema.String, partIDs: Schema.Array(Schema.String) })),
      by: Origin,
    }),
  )

  /**
   * Journaled payloads of superseded content were replaced by tombstones. Changes no projected row; it
   * records that the erase happened, how much went, and who asked.
   */
  export const Erased = durable(
    "session.erased",
    1,
    Schema.Struct({ events: Schema.Number, fields: Schema.Number, bytes: Schema.Number, by: Origin }),
  )

  /**
   * A tool call waits for the user's permission (DESIGN "Tools and permissions"). Durable, so the ask
   * survives a restart with the same id; `input` is the stored call that runs once it is answered.
   */
  export const PermissionAsked = durable(
    "session.permission.asked",
    1,
    Schema.Struct({ permissionID: Schema.String, ...AskFields }),
  )

  /** The ask was answered: `once`, `always` (a session-scoped allow for its patterns) or `reject`. */
  export const PermissionReplied = durable(
    "session.permission.replied",
    1,
    Schema.Struct({
      permissionID: Schema.String,
      reply: Schema.Literals(["once", "always", "reject"]),
      message: Schema.optional(Schema.String),
    }),
  )

  /** The host summarised the older transcript: a `compaction` message enters the transcript. */
  export const Compacted = durable("session.compacted", 1, Schema.Struct({ message: CompactionInput }))

  /** Streaming text/reasoning/tool-input deltas: published live, never stored. */
  export const PartDelta = ephemeral(
    "session.part.delta",
    Schema.Struct({
      messageID: Schema.String,
      partID: Schema.String,
      field: Schema.Literals(["text", "reasoning"]),
      delta: Schema.String,
    }),
  )

  /**
   * A model request failed transiently (429, 5xx, connection) and is retried after `delayMs`; the session's
   * status is `retrying` meanwhile. Published live, never stored.
   */
  export const Retry = ephemeral(
    "session.retry",
    Schema.Struct({ attempt: Schema.Number, delayMs: Schema.Number, error: Schema.String }),
  )

  export const all = [
    Created,
    Renamed,
    Deleted,
    InputQueued,
    MessageAdmitted,
    TurnStarted,
    TurnResumed,
    TurnEnded,
    AssistantStarted,
    PartUpdated,
    AssistantCompleted,
    MessageCorrected,
    MessageRetracted,
    PartRemoved,
    Pruned,
    Erased,
    PermissionAsked,
    PermissionReplied,
    Compacted,
  ] as const
}
