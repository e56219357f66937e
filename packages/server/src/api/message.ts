import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  InvalidTargetError,
  MessageNotFoundError,
  PartNotFoundError,
  SessionBusyError,
  SessionNotFoundError,
} from "./errors.ts"
import { Limit, Message, MessagePage, SeqCursor } from "./schema.ts"

const params = { sessionID: Schema.String, messageID: Schema.String }
const mutationErrors = [
  SessionNotFoundError,
  MessageNotFoundError,
  PartNotFoundError,
  SessionBusyError,
  InvalidTargetError,
] as const

/** The transcript: reads, text correction and retraction. `message.*` operations. */
export class MessageGroup extends HttpApiGroup.make("message")
  .add(
    HttpApiEndpoint.get("list", "/api/session/:sessionID/message", {
      params: { sessionID: Schema.String },
      query: {
        cursor: Schema.optionalKey(SeqCursor),
        limit: Schema.optionalKey(Limit),
        order: Schema.optionalKey(Schema.Literals(["asc", "desc"])),
      },
      success: MessagePage,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "List messages in seq order (limit 1..200, default 100)"),
    HttpApiEndpoint.get("get", "/api/session/:sessionID/message/:messageID", {
      params,
      success: Message,
      error: [SessionNotFoundError, MessageNotFoundError],
    }).annotate(OpenApi.Summary, "Get a message"),
    HttpApiEndpoint.patch("update", "/api/session/:sessionID/message/:messageID/part/:partID", {
      params: { ...params, partID: Schema.String },
      payload: Schema.Struct({ text: Schema.String }),
      success: Message,
      error: mutationErrors,
    }).annotate(
      OpenApi.Summary,
      "Correct a text part of a user, synthetic or completed assistant message (between turns only); returns the updated message",
    ),
    HttpApiEndpoint.delete("remove", "/api/session/:sessionID/message/:messageID", {
      params,
      success: Message,
      error: mutationErrors,
    }).annotate(
      OpenApi.Summary,
      "Retract a user or synthetic message behind a host placeholder (between turns only); returns the updated message",
    ),
  )
  .annotate(OpenApi.Description, "Messages of a session and the transcript mutation contract") {}

/** Parts of completed assistant messages: `part.remove`. */
export class PartGroup extends HttpApiGroup.make("part")
  .add(
    HttpApiEndpoint.delete("remove", "/api/session/:sessionID/message/:messageID/part/:partID", {
      params: { ...params, partID: Schema.String },
      success: Message,
      error: mutationErrors,
    }).annotate(
      OpenApi.Summary,
      "Remove a tool or reasoning part of a completed assistant message (between turns only); returns the updated message",
    ),
  )
  .annotate(OpenApi.Description, "Parts of assistant messages") {}
