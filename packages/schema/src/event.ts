import { Schema } from "effect"
import { durable, ephemeral } from "./definition.ts"
import { LocationRef } from "./location.ts"
import { ErrorInfo, ToolContent } from "./message.ts"
import { ModelRef, Tokens } from "./model.ts"
import { Origin } from "./origin.ts"
import { PermissionReply, PermissionSource } from "./permission.ts"
import { Delivery, Prompt, PromptSubtask } from "./prompt.ts"
import { RevertConflict, RevertState } from "./session.ts"
import { QuestionAnswer, QuestionInfo, QuestionTool } from "./question.ts"
import { Todo } from "./todo.ts"
import { PrunableType } from "./storage.ts"

/**
 * Every state change of a session, as events in upstream OpenCode v2's `session.next.*` vocabulary. Where
 * upstream declares an event, its name and data fields are upstream's (the host may add fields); the
 * host's additions (turns, corrections, retractions, removals, prune, erase, queued notices) are named in
 * the same vocabulary. The projection is a pure function of the durable ones, which is what makes replay
 * from the journal reproduce it exactly.
 */
export namespace SessionEvent {
  // ---- the session itself -------------------------------------------------------------------------------

  /** Addition: a session was created. */
  export const Created = durable(
    "session.next.created",
    1,
    Schema.Struct({
      title: Schema.String,
      location: LocationRef,
      parentID: Schema.optional(Schema.String),
      agent: Schema.optional(Schema.String),
      model: Schema.optional(ModelRef),
    }),
  )

  /** Addition: the session's title changed. */
  export const Renamed = durable("session.next.renamed", 1, Schema.Struct({ title: Schema.String }))

  /** Addition: the session was deleted. */
  export const Deleted = durable("session.next.deleted", 1, Schema.Struct({}))

  /** Later turns use this agent; an `agent-switched` message marks the point in the transcript. */
  export const AgentSwitched = durable(
    "session.next.agent.switched",
    1,
    Schema.Struct({ messageID: Schema.String, agent: Schema.String }),
  )

  /** Later turns use this model; a `model-switched` message marks the point in the transcript. */
  export const ModelSwitched = durable(
    "session.next.model.switched",
    1,
    Schema.Struct({ messageID: Schema.String, model: ModelRef }),
  )

  // ---- input --------------------------------------------------------------------------------------------

  const promptFields = {
    messageID: Schema.String,
    prompt: Prompt,
    delivery: Delivery,
    origin: Origin,
    /** The agent and model the prompt asked for, if it chose. */
    agent: Schema.optional(Schema.String),
    model: Schema.optional(ModelRef),
    /** Set when the prompt invoked a `subtask: true` command: its turn runs the text as a `task` call. */
    subtask: Schema.optional(PromptSubtask),
  }

  /**
   * A prompt was accepted while a turn holds the session: it waits in the inbox (readable and retractable by
   * id, `queued: true`) until it is delivered by `prompt.admitted`. `resume: false` delivers it without
   * starting a turn.
   */
  export const Prompted = durable(
    "session.next.prompted",
    1,
    Schema.Struct({ ...promptFields, resume: Schema.optional(Schema.Boolean) }),
  )

  /** A prompt enters the transcript as a `user` message (at once, or delivered from the inbox). */
  export const PromptAdmitted = durable("session.next.prompt.admitted", 1, Schema.Struct(promptFields))

  const noticeFields = {
    messageID: Schema.String,
    text: Schema.String,
    origin: Origin,
    description: Schema.optional(Schema.String),
  }

  /** Addition: a notice was accepted while a turn holds the session; it waits in the inbox. */
  export const SyntheticQueued = durable(
    "session.next.synthetic.queued",
    1,
    Schema.Struct({ ...noticeFields, resume: Schema.Boolean }),
  )

  /** A notice enters the transcript as a `synthetic` message (at once, or delivered from the inbox). */
  export const Synthetic = durable("session.next.synthetic", 1, Schema.Struct(noticeFields))

  // ---- turns (addition: the durable execution claim) ----------------------------------------------------

  export const TurnReason = Schema.Literals(["prompt", "synthetic", "resume", "continue", "compact"])
  export type TurnReason = typeof TurnReason.Type

  /** A turn takes the session's execution claim. Transcript mutations are refused until it is released. */
  export const TurnStarted = durable(
    "session.next.turn.started",
    1,
    Schema.Struct({ turnID: Schema.String, reason: TurnReason }),
  )

  /** A claimed turn is resumed after a restart or on request; attempts are counted here, durably. */
  export const TurnResumed = durable(
    "session.next.turn.resumed",
    1,
    Schema.Struct({ turnID: Schema.String, attempt: Schema.Number }),
  )

  /** A turn releases the execution claim. */
  export const TurnEnded = durable(
    "session.next.turn.ended",
    1,
    Schema.Struct({
      turnID: Schema.String,
      outcome: Schema.Literals(["completed", "interrupted", "failed"]),
      error: Schema.optional(ErrorInfo),
    }),
  )

  // ---- steps: one model request each, answered by one assistant message ---------------------------------

  export const StepStarted = durable(
    "session.next.step.started",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      agent: Schema.String,
      model: ModelRef,
      snapshot: Schema.optional(Schema.String),
      turnID: Schema.String,
    }),
  )

  export const StepEnded = durable(
    "session.next.step.ended",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      finish: Schema.String,
      cost: Schema.Number,
      tokens: Tokens,
      snapshot: Schema.optional(Schema.String),
      files: Schema.optional(Schema.Array(Schema.String)),
    }),
  )

  /** The step stopped early (interrupted, provider failure, hook failure); what it streamed so far stays. */
  export const StepFailed = durable(
    "session.next.step.failed",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      error: ErrorInfo,
      finish: Schema.optional(Schema.String),
      tokens: Schema.optional(Tokens),
    }),
  )

  // ---- text and reasoning -------------------------------------------------------------------------------

  export const TextStarted = durable(
    "session.next.text.started",
    1,
    Schema.Struct({ assistantMessageID: Schema.String, textID: Schema.String }),
  )

  /** Live only: streamed text. */
  export const TextDelta = ephemeral(
    "session.next.text.delta",
    Schema.Struct({ assistantMessageID: Schema.String, textID: Schema.String, delta: Schema.String }),
  )

  /**
   * Addition: a durable checkpoint of a streaming text, so a crash loses at most a second of it. `text` is
   * what was appended since the previous checkpoint, at `offset` (the length before it): applying it twice,
   * or after the live deltas, gives the same text.
   */
  export const TextAppended = durable(
    "session.next.text.appended",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      textID: Schema.String,
      offset: Schema.Number,
      text: Schema.String,
    }),
  )

  export const TextEnded = durable(
    "session.next.text.ended",
    1,
    Schema.Struct({ assistantMessageID: Schema.String, textID: Schema.String, text: Schema.String }),
  )

  const ProviderMetadata = Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Unknown))

  export const ReasoningStarted = durable(
    "session.next.reasoning.started",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      reasoningID: Schema.String,
      providerMetadata: Schema.optional(ProviderMetadata),
    }),
  )

  export const ReasoningDelta = ephemeral(
    "session.next.reasoning.delta",
    Schema.Struct({ assistantMessageID: Schema.String, reasoningID: Schema.String, delta: Schema.String }),
  )

  /** Addition: a durable checkpoint of streaming reasoning (see `text.appended`). */
  export const ReasoningAppended = durable(
    "session.next.reasoning.appended",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      reasoningID: Schema.String,
      offset: Schema.Number,
      text: Schema.String,
    }),
  )

  export const ReasoningEnded = durable(
    "session.next.reasoning.ended",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      reasoningID: Schema.String,
      text: Schema.String,
      providerMetadata: Schema.optional(ProviderMetadata),
    }),
  )

  // ---- tools --------------------------------------------------------------------------------------------

  const executed = Schema.Struct({ executed: Schema.Boolean })
  const Structured = Schema.Record(Schema.String, Schema.Unknown)

  /** The model started writing a tool call; `itemID` is the host's id for the tool item. */
  export const ToolInputStarted = durable(
    "session.next.tool.input.started",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      callID: Schema.String,
      name: Schema.String,
      itemID: Schema.String,
    }),
  )

  export const ToolInputDelta = ephemeral(
    "session.next.tool.input.delta",
    Schema.Struct({ assistantMessageID: Schema.String, callID: Schema.String, delta: Schema.String }),
  )

  export const ToolInputEnded = durable(
    "session.next.tool.input.ended",
    1,
    Schema.Struct({ assistantMessageID: Schema.String, callID: Schema.String, text: Schema.String }),
  )

  /** The call is complete and runs (after its permission, if one was needed). */
  export const ToolCalled = durable(
    "session.next.tool.called",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      callID: Schema.String,
      tool: Schema.String,
      input: Schema.Record(Schema.String, Schema.Unknown),
      provider: executed,
      itemID: Schema.String,
      title: Schema.optional(Schema.String),
    }),
  )

  export const ToolProgress = durable(
    "session.next.tool.progress",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      callID: Schema.String,
      structured: Structured,
      content: Schema.Array(ToolContent),
    }),
  )

  export const ToolSuccess = durable(
    "session.next.tool.success",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      callID: Schema.String,
      structured: Structured,
      content: Schema.Array(ToolContent),
      outputPaths: Schema.optional(Schema.Array(Schema.String)),
      result: Schema.optional(Schema.Unknown),
      provider: executed,
      title: Schema.optional(Schema.String),
    }),
  )

  export const ToolFailed = durable(
    "session.next.tool.failed",
    1,
    Schema.Struct({
      assistantMessageID: Schema.String,
      callID: Schema.String,
      error: ErrorInfo,
      result: Schema.optional(Schema.Unknown),
      provider: executed,
      structured: Schema.optional(Structured),
      title: Schema.optional(Schema.String),
    }),
  )

  // ---- provider retries ---------------------------------------------------------------------------------

  export const RetryError = Schema.Struct({
    message: Schema.String,
    statusCode: Schema.optional(Schema.Number),
    isRetryable: Schema.Boolean,
    responseHeaders: Schema.optional(Schema.Record(Schema.String, Schema.String)),
    responseBody: Schema.optional(Schema.String),
    metadata: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  }).annotate({ identifier: "SessionNextRetryError" })

  /** A model request failed transiently (429, 5xx, connection) and is retried after `delayMs`. */
  export const Retried = durable(
    "session.next.retried",
    1,
    Schema.Struct({ attempt: Schema.Number, error: RetryError, delayMs: Schema.Number }),
  )

  // ---- compaction ---------------------------------------------------------------------------------------

  const CompactionReason = Schema.Literals(["auto", "manual"])

  export const CompactionStarted = durable(
    "session.next.compaction.started",
    1,
    Schema.Struct({ messageID: Schema.String, reason: CompactionReason }),
  )

  export const CompactionDelta = ephemeral(
    "session.next.compaction.delta",
    Schema.Struct({ messageID: Schema.String, text: Schema.String }),
  )

  /**
   * The summary is written: a `compaction` message (origin `host`) enters the transcript. `text` is the
   * summary, `recent` the latest prompt kept verbatim, `through` the seq of the last message it covers.
   */
  export const CompactionEnded = durable(
    "session.next.compaction.ended",
    1,
    Schema.Struct({
      messageID: Schema.String,
      reason: CompactionReason,
      text: Schema.String,
      recent: Schema.String,
      /** The message `recent` restates: model requests send it as it stands (corrected, or not if retracted). */
      promptID: Schema.optional(Schema.String),
      through: Schema.Number,
      overflow: Schema.optional(Schema.Literal(true)),
      model: Schema.optional(ModelRef),
      tokens: Schema.optional(Tokens),
    }),
  )

  // ---- permissions --------------------------------------------------------------------------------------

  /**
   * A tool call waits for the user's permission: upstream's `permission.v2.asked`. Durable, so the request
   * survives a restart with the same id; `input` is the stored call that runs once it is answered.
   */
  export const PermissionAsked = durable(
    "permission.v2.asked",
    1,
    Schema.Struct({
      id: Schema.String,
      action: Schema.String,
      resources: Schema.Array(Schema.String),
      save: Schema.optional(Schema.Array(Schema.String)),
      metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
      source: PermissionSource,
      itemID: Schema.String,
      tool: Schema.String,
      title: Schema.String,
      input: Schema.Record(Schema.String, Schema.Unknown),
    }),
  )

  /** The request was answered: `once`, `always` (a session-scoped allow for `save`) or `reject`. */
  export const PermissionReplied = durable(
    "permission.v2.replied",
    1,
    Schema.Struct({ requestID: Schema.String, reply: PermissionReply, message: Schema.optional(Schema.String) }),
  )

  // ---- questions and todos -----------------------------------------------------------------------------

  /**
   * The `question` tool asks the user: upstream's `question.v2.asked`. Durable, so the request survives a
   * restart with the same id and the waiting call picks its answer up.
   */
  export const QuestionAsked = durable(
    "question.v2.asked",
    1,
    Schema.Struct({ id: Schema.String, questions: Schema.Array(QuestionInfo), tool: Schema.optional(QuestionTool) }),
  )

  /** The user answered: one array of labels (or typed text) per question, in order. */
  export const QuestionReplied = durable(
    "question.v2.replied",
    1,
    Schema.Struct({ requestID: Schema.String, answers: Schema.Array(QuestionAnswer) }),
  )

  /** The user declined to answer (or the turn was interrupted): the tool call fails. */
  export const QuestionRejected = durable("question.v2.rejected", 1, Schema.Struct({ requestID: Schema.String }))

  /** The session's todo list was replaced (`todowrite`): upstream's `todo.updated`, the whole list. */
  export const TodoUpdated = durable("todo.updated", 1, Schema.Struct({ todos: Schema.Array(Todo) }))

  // ---- the transcript mutation contract (additions) ----------------------------------------------------

  /**
   * A text was corrected: a user or synthetic message's `text` or a compaction's `summary` (no `itemID`),
   * or an assistant text item.
   * Ids, role and seq are unchanged.
   */
  export const TextCorrected = durable(
    "session.next.text.corrected",
    1,
    Schema.Struct({
      messageID: Schema.String,
      itemID: Schema.optional(Schema.String),
      text: Schema.String,
      by: Origin,
    }),
  )

  /** A user or synthetic message was retracted behind the host-rendered placeholder. */
  export const MessageRetracted = durable(
    "session.next.message.retracted",
    1,
    Schema.Struct({ messageID: Schema.String, placeholder: Schema.String, by: Origin }),
  )

  /** A tool call's input and output left the transcript; the item stays, marked `time.pruned`. */
  export const ToolPruned = durable(
    "session.next.tool.pruned",
    1,
    Schema.Struct({ assistantMessageID: Schema.String, callID: Schema.String, itemID: Schema.String, by: Origin }),
  )

  /** A reasoning item left its assistant message. */
  export const ReasoningRemoved = durable(
    "session.next.reasoning.removed",
    1,
    Schema.Struct({ assistantMessageID: Schema.String, reasoningID: Schema.String, by: Origin }),
  )

  /** Batch prune: the listed tool and reasoning items leave their completed assistant messages. */
  export const Pruned = durable(
    "session.next.pruned",
    1,
    Schema.Struct({
      types: Schema.Array(PrunableType),
      messages: Schema.Array(Schema.Struct({ messageID: Schema.String, itemIDs: Schema.Array(Schema.String) })),
      by: Origin,
    }),
  )

  /**
   * Journaled payloads of superseded content were replaced by tombstones. Changes no projected row; it
   * records that the erase happened, how much went, and who asked.
   */
  export const Erased = durable(
    "session.next.erased",
    1,
    Schema.Struct({ events: Schema.Number, fields: Schema.Number, bytes: Schema.Number, by: Origin }),
  )

  // ---- revert -------------------------------------------------------------------------------------------

  /**
   * A revert was staged (or moved): the messages in the revert's range are hidden from the view and the
   * model, and its files were restored. Upstream's event; `revert` carries the host's additions.
   */
  export const RevertStaged = durable("session.next.revert.staged", 1, Schema.Struct({ revert: RevertState }))

  /** The staged revert was undone: its messages are visible again and its files were put back. */
  export const RevertCleared = durable(
    "session.next.revert.cleared",
    1,
    /** Addition: the files clearing left alone (changed since the revert was staged). */
    Schema.Struct({ conflicts: Schema.optional(Schema.Array(RevertConflict)) }),
  )

  /**
   * The staged revert was made final: the messages after `messageID` (seq `after`, exclusive, to `through`,
   * inclusive; additions) are removed from the transcript.
   */
  export const RevertCommitted = durable(
    "session.next.revert.committed",
    1,
    Schema.Struct({ messageID: Schema.String, after: Schema.Number, through: Schema.Number }),
  )

  // ---- status (live only) -------------------------------------------------------------------------------

  /**
   * Upstream's `session.status`: `idle`, `busy` or `retry` (with the attempt and when the next one starts),
   * plus `name`, this host's finer status (`waiting` for a permission answer, `suspended` after a restart).
   */
  export const Status = ephemeral(
    "session.status",
    Schema.Struct({
      status: Schema.Union([
        Schema.Struct({ type: Schema.Literal("idle") }),
        Schema.Struct({ type: Schema.Literal("busy") }),
        Schema.Struct({
          type: Schema.Literal("retry"),
          attempt: Schema.Number,
          message: Schema.String,
          next: Schema.Number,
        }),
      ]),
      name: Schema.Literals(["idle", "busy", "retrying", "waiting", "suspended"]),
    }),
  )

  // ---- plugins (live only) ------------------------------------------------------------------------------

  /**
   * Addition: a plugin's event subscription fell `buffer` events behind and misses events (starting with
   * one of `dropped` type, of this session) until it catches up. Published once per overflow; the host
   * never waits for a slow subscriber.
   */
  export const PluginEventOverflowed = ephemeral(
    "plugin.event.overflowed",
    Schema.Struct({
      pluginID: Schema.String,
      /** The type the plugin subscribed to, or `*`. */
      subscription: Schema.String,
      buffer: Schema.Number,
      dropped: Schema.String,
    }),
  )
}
