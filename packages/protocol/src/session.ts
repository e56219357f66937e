import {
  Delivery,
  EraseSummary,
  InputAdmitted,
  LocationRef,
  ModelRef,
  Page,
  PromptInput,
  PrunableType,
  PruneSummary,
  SessionActive,
  SessionDurableEvent,
  SessionInfo,
  SessionMessage,
} from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { commits, data } from "./envelope.ts"
import { EventStream, eventStreamDocument } from "./event-stream.ts"
import {
  InvalidCursorError,
  InvalidRequestError,
  InvalidTargetError,
  ItemNotFoundError,
  JournalDisabledError,
  MessageNotFoundError,
  SessionBusyError,
  SessionNotFoundError,
  PayloadTooLargeError,
  SessionQueueFullError,
} from "./errors.ts"
import { ItemParams, Limit, MessageParams, Order, SessionID, SessionParams, Text } from "./params.ts"

/**
 * Sessions, their turns and their transcripts: upstream OpenCode v2's `v2.session.*` operations, then the
 * host's additions in the same conventions (`{ data }` bodies, flat method names, a `session.next.*` event
 * each): rename and delete, notices, resume, the transcript mutation contract (correct, retract, remove an
 * item), prune and erase.
 */

const ModelChoice = ModelRef

export const SessionPage = Page(SessionInfo).annotate({ identifier: "SessionsResponse" })
export const MessagePage = Page(SessionMessage).annotate({ identifier: "SessionMessagesResponse" })
export const SessionHistory = Schema.Struct({
  data: Schema.Array(SessionDurableEvent),
  hasMore: Schema.Boolean,
}).annotate({ identifier: "SessionHistory" })

const busy = [SessionNotFoundError, SessionBusyError] as const
const mutationErrors = [
  SessionNotFoundError,
  MessageNotFoundError,
  ItemNotFoundError,
  SessionBusyError,
  InvalidTargetError,
  InvalidRequestError,
] as const

export class SessionGroup extends HttpApiGroup.make("v2.session")
  .add(
    HttpApiEndpoint.get("list", "/api/session", {
      query: {
        workspace: Schema.optionalKey(Schema.String),
        limit: Schema.optionalKey(Limit),
        order: Schema.optionalKey(Order),
        search: Schema.optionalKey(Schema.String),
        directory: Schema.optionalKey(Schema.String),
        project: Schema.optionalKey(Schema.String),
        subpath: Schema.optionalKey(Schema.String),
        cursor: Schema.optionalKey(Schema.String),
        /** Addition: only the children of this session (the sessions its `task` calls started). */
        parentID: Schema.optionalKey(SessionID),
      },
      success: SessionPage,
      error: [InvalidCursorError, InvalidRequestError],
    }).annotate(
      OpenApi.Summary,
      "Sessions by creation (`order`, default newest first), filtered by `directory`, `search` (title), `project` or `parentID` (a session's children); page with cursor.next / cursor.previous (a cursor continues its listing in its order)",
    ),
    HttpApiEndpoint.post("create", "/api/session", {
      payload: Schema.Struct({
        id: Schema.optionalKey(Schema.String),
        agent: Schema.optionalKey(Schema.String),
        model: Schema.optionalKey(ModelChoice),
        location: Schema.optionalKey(LocationRef),
        title: Schema.optionalKey(Text),
      }),
      success: data(SessionInfo),
      error: InvalidRequestError,
    }).annotate(
      OpenApi.Summary,
      "Create a session at `location` (an existing directory, stored resolved; default the client's `x-opencode-directory`, else the server's)",
    ),
    HttpApiEndpoint.get("active", "/api/session/active", {
      success: data(Schema.Record(Schema.String, SessionActive)),
    }).annotate(OpenApi.Summary, "Sessions whose turn runs in this process; absent sessions are inactive"),
    HttpApiEndpoint.get("get", "/api/session/:sessionID", {
      params: SessionParams,
      success: data(SessionInfo),
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "A session, with its status and context figures"),
    HttpApiEndpoint.post("switchAgent", "/api/session/:sessionID/agent", {
      params: SessionParams,
      payload: Schema.Struct({ agent: Schema.String }),
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, InvalidRequestError],
    }).annotate(OpenApi.Summary, "Switch the agent later turns use"),
    HttpApiEndpoint.post("switchModel", "/api/session/:sessionID/model", {
      params: SessionParams,
      payload: Schema.Struct({ model: ModelChoice }),
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, InvalidRequestError],
    }).annotate(OpenApi.Summary, "Switch the model later turns use"),
    HttpApiEndpoint.post("prompt", "/api/session/:sessionID/prompt", {
      params: SessionParams,
      payload: Schema.Struct({
        id: Schema.optionalKey(Schema.String),
        prompt: PromptInput,
        delivery: Schema.optionalKey(Delivery),
        resume: Schema.optionalKey(Schema.Boolean),
        agent: Schema.optionalKey(Schema.String),
        model: Schema.optionalKey(ModelChoice),
      }),
      success: data(InputAdmitted),
      error: [SessionNotFoundError, InvalidRequestError, SessionQueueFullError, PayloadTooLargeError],
    }).annotate(
      OpenApi.Summary,
      "Admit a prompt and run a turn for it (`resume: false` only stores it); behind a running turn it waits (`delivery: queue`, the default) or joins at the next step (`steer`). A repeated `id` answers the first admission.",
    ),
    HttpApiEndpoint.post("compact", "/api/session/:sessionID/compact", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: busy,
    }).annotate(OpenApi.Summary, "Start a compaction turn: summarise the older transcript now"),
    HttpApiEndpoint.post("wait", "/api/session/:sessionID/wait", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Return once no turn of the session runs"),
    HttpApiEndpoint.get("context", "/api/session/:sessionID/context", {
      params: SessionParams,
      success: data(Schema.Array(SessionMessage)),
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "The messages the next model request is built from (after the latest compaction)"),
    HttpApiEndpoint.get("history", "/api/session/:sessionID/history", {
      params: SessionParams,
      query: {
        limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
        after: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
      },
      success: SessionHistory,
      error: [SessionNotFoundError, InvalidRequestError, JournalDisabledError],
    }).annotate(OpenApi.Summary, "One page of the session's durable events after the seq `after` (exclusive)"),
    HttpApiEndpoint.get("events", "/api/session/:sessionID/event", {
      params: SessionParams,
      query: {
        after: Schema.optionalKey(
          // Checked by the handler (with the `Last-Event-ID` header it stands in for).
          Schema.String.annotate({ description: "Send events with a greater seq (exclusive)" }),
        ),
      },
      success: EventStream,
      error: [InvalidRequestError, SessionNotFoundError, JournalDisabledError],
    })
      .annotate(OpenApi.Summary, "Subscribe to session events")
      .annotate(
        OpenApi.Description,
        "Replays the session's durable events after the seq `after` (exclusive; else the `Last-Event-ID` header, " +
          "else 0), from the journal (gaps only where it was compacted: an ended part's streaming checkpoints, a retention base), then continues with new durable events. Frames carry " +
          "`id: <seq>`, `event: <type>` and one JSON `SessionDurableEvent`. Needs the event journal " +
          "(`events.persist`, on by default); otherwise 409 `JournalDisabledError`.",
      )
      .annotate(
        OpenApi.Transform,
        eventStreamDocument({
          event: "SessionDurableEvent",
          description: "Durable event stream",
          patterns: { after: "^\\d+$" },
        }),
      ),
    HttpApiEndpoint.post("interrupt", "/api/session/:sessionID/interrupt", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Stop the running (or suspended) turn; idle sessions are unchanged"),
    HttpApiEndpoint.get("message", "/api/session/:sessionID/message/:messageID", {
      params: MessageParams,
      success: data(SessionMessage),
      error: [SessionNotFoundError, MessageNotFoundError],
    }).annotate(OpenApi.Summary, "One message, also while it waits behind a running turn (`queued`)"),
    HttpApiEndpoint.get("messages", "/api/session/:sessionID/message", {
      params: SessionParams,
      query: {
        limit: Schema.optionalKey(Limit),
        order: Schema.optionalKey(Order),
        cursor: Schema.optionalKey(Schema.String),
      },
      success: MessagePage,
      error: [SessionNotFoundError, InvalidCursorError, InvalidRequestError],
    }).annotate(
      OpenApi.Summary,
      "Messages in seq order (`order`, default ascending); page with cursor.next / cursor.previous (a cursor continues its listing in its order)",
    ),

    // ---- additions ----
    HttpApiEndpoint.patch("update", "/api/session/:sessionID", {
      params: SessionParams,
      payload: Schema.Struct({ title: Text }),
      success: data(SessionInfo),
      error: [SessionNotFoundError, InvalidRequestError],
    })
      .annotate(OpenApi.Summary, "Rename a session")
      .annotate(OpenApi.Override, commits("session.next.renamed")),
    HttpApiEndpoint.delete("delete", "/api/session/:sessionID", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: SessionNotFoundError,
    })
      .annotate(OpenApi.Summary, "Stop any running turn, then delete the session")
      .annotate(OpenApi.Override, commits("session.next.deleted")),
    HttpApiEndpoint.post("synthetic", "/api/session/:sessionID/synthetic", {
      params: SessionParams,
      payload: Schema.Struct({
        text: Text,
        description: Schema.optionalKey(Schema.String),
        resume: Schema.optionalKey(Schema.Boolean),
      }),
      success: data(InputAdmitted),
      error: [SessionNotFoundError, InvalidRequestError, SessionQueueFullError, PayloadTooLargeError],
    })
      .annotate(OpenApi.Summary, "Admit a host notice (origin `host`); `resume` (default true) wakes the session")
      .annotate(OpenApi.Override, commits("session.next.synthetic", "session.next.synthetic.queued")),
    HttpApiEndpoint.post("resume", "/api/session/:sessionID/resume", {
      params: SessionParams,
      success: data(Schema.Struct({ resumed: Schema.Boolean })),
      error: busy,
    })
      .annotate(OpenApi.Summary, "Continue the session without adding a message (also a turn suspended by a restart)")
      .annotate(OpenApi.Override, commits("session.next.turn.started", "session.next.turn.resumed")),
    HttpApiEndpoint.patch("correct", "/api/session/:sessionID/message/:messageID", {
      params: MessageParams,
      payload: Schema.Struct({
        text: Schema.String,
        /** The assistant text item to correct; omitted for a user or synthetic message's own text. */
        itemID: Schema.optionalKey(Schema.String),
      }),
      success: data(SessionMessage),
      error: mutationErrors,
    })
      .annotate(
        OpenApi.Summary,
        "Correct a user or synthetic message's text, or an assistant text item (`itemID`); ids are kept. Between turns only",
      )
      .annotate(OpenApi.Override, commits("session.next.text.corrected")),
    HttpApiEndpoint.delete("retract", "/api/session/:sessionID/message/:messageID", {
      params: MessageParams,
      success: data(SessionMessage),
      error: mutationErrors,
    })
      .annotate(
        OpenApi.Summary,
        "Retract a user or synthetic message behind a host placeholder; queued input is cancelled at once, otherwise between turns only",
      )
      .annotate(OpenApi.Override, commits("session.next.message.retracted")),
    HttpApiEndpoint.delete("removeItem", "/api/session/:sessionID/message/:messageID/item/:itemID", {
      params: ItemParams,
      success: data(SessionMessage),
      error: mutationErrors,
    })
      .annotate(
        OpenApi.Summary,
        "Take a tool call (pruned: input and output leave, `time.pruned` is set) or a reasoning item out of a completed assistant message. Between turns only",
      )
      .annotate(OpenApi.Override, commits("session.next.tool.pruned", "session.next.reasoning.removed")),
    HttpApiEndpoint.post("prune", "/api/session/:sessionID/prune", {
      params: SessionParams,
      payload: Schema.Struct({
        types: Schema.optionalKey(
          Schema.Array(PrunableType).check(Schema.isMinLength(1, { message: "expected at least one item type" })),
        ),
      }),
      success: data(PruneSummary),
      error: [...busy, InvalidRequestError],
    })
      .annotate(
        OpenApi.Summary,
        "Prune every tool call and/or remove every reasoning item (`types`, default both) of the completed assistant messages. Between turns only",
      )
      .annotate(OpenApi.Override, commits("session.next.pruned")),
    HttpApiEndpoint.post("erase", "/api/session/:sessionID/erase", {
      params: SessionParams,
      success: data(EraseSummary),
      error: SessionNotFoundError,
    })
      .annotate(
        OpenApi.Summary,
        "Replace the journaled payloads of superseded content with tombstones, then rebuild the database file",
      )
      .annotate(OpenApi.Override, commits("session.next.erased")),
    HttpApiEndpoint.post("fork", "/api/session/:sessionID/fork", {
      params: SessionParams,
      payload: Schema.Struct({
        /** The last message copied; default the whole transcript. */
        messageID: Schema.optionalKey(Schema.String),
      }),
      success: data(SessionInfo),
      error: [SessionNotFoundError, MessageNotFoundError, SessionBusyError, InvalidRequestError],
    })
      .annotate(
        OpenApi.Summary,
        "Fork the session into a new one (same directory, `parentID` this session) holding a copy of the transcript up to and including `messageID` (default all of it), with new ids",
      )
      .annotate(OpenApi.Override, commits("session.next.created")),
  )
  .annotate(OpenApi.Description, "Sessions, turns and transcripts") {}
