import { RevertState } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { commits, data } from "./envelope.ts"
import {
  InvalidRequestError,
  InvalidTargetError,
  MessageNotFoundError,
  SessionBusyError,
  SessionNotFoundError,
} from "./errors.ts"
import { SessionParams } from "./params.ts"

/**
 * Revert, at upstream OpenCode v2's paths: stage a boundary after a message (its later messages hidden, the
 * files the session's tools changed after it restored from their before-images), clear it, or commit it
 * (the hidden messages removed). Between turns only (409 while a turn holds the session), like every
 * transcript mutation. Files changed outside the session since are reported in `conflicts` and left alone.
 */
export class SessionRevertGroup extends HttpApiGroup.make("v2.session.revert")
  .add(
    HttpApiEndpoint.post("stage", "/api/session/:sessionID/revert/stage", {
      params: SessionParams,
      payload: Schema.Struct({
        messageID: Schema.String,
        /** Whether to restore files (default true); `false` hides the later messages only. */
        files: Schema.optionalKey(Schema.Boolean),
      }),
      success: data(RevertState),
      error: [SessionNotFoundError, MessageNotFoundError, SessionBusyError, InvalidTargetError, InvalidRequestError],
    })
      .annotate(
        OpenApi.Summary,
        "Stage or move the revert boundary after `messageID`: later messages are hidden from the view and the model, and the files the session's tools changed after it are restored (`conflicts`: files changed outside the session, left alone)",
      )
      .annotate(OpenApi.Override, commits("session.next.revert.staged", "session.next.revert.cleared")),
    HttpApiEndpoint.post("clear", "/api/session/:sessionID/revert/clear", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, SessionBusyError, InvalidTargetError, InvalidRequestError],
    })
      .annotate(
        OpenApi.Summary,
        "Undo the staged revert: its messages are shown again and its files put back (files changed since are left alone, listed in the event's `conflicts`)",
      )
      .annotate(OpenApi.Override, commits("session.next.revert.cleared")),
    HttpApiEndpoint.post("commit", "/api/session/:sessionID/revert/commit", {
      params: SessionParams,
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, SessionBusyError, InvalidRequestError],
    })
      .annotate(OpenApi.Summary, "Make the staged revert final: its hidden messages are removed")
      .annotate(OpenApi.Override, commits("session.next.revert.committed")),
  )
  .annotate(OpenApi.Description, "Revert") {}
