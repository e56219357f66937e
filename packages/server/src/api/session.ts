import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InvalidRequestError, SessionBusyError, SessionNotFoundError, SessionQueueFullError } from "./errors.ts"
import {
  Admitted,
  CompactionStarted,
  EraseSummary,
  Limit,
  ModelName,
  PrunableType,
  PruneSummary,
  SessionDetail,
  SessionInfo,
  SessionPage,
  Text,
} from "./schema.ts"

const params = { sessionID: Schema.String }

/** Sessions and their turns: `session.*` operations. */
export class SessionGroup extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.post("create", "/api/session", {
      payload: Schema.Struct({
        title: Schema.optionalKey(Schema.String),
        directory: Schema.optionalKey(Schema.String),
        agent: Schema.optionalKey(Schema.String),
        model: Schema.optionalKey(ModelName),
      }),
      success: SessionInfo,
      error: InvalidRequestError,
    }).annotate(OpenApi.Summary, "Create a session (`directory`: an existing directory, stored resolved)"),
    HttpApiEndpoint.get("list", "/api/session", {
      query: { cursor: Schema.optionalKey(Schema.String), limit: Schema.optionalKey(Limit) },
      success: SessionPage,
    }).annotate(OpenApi.Summary, "List sessions, newest first; pass the returned cursor for the next page"),
    HttpApiEndpoint.get("get", "/api/session/:sessionID", {
      params,
      success: SessionDetail,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Get a session, with its token figures (`tokens: { context, limit }`)"),
    HttpApiEndpoint.patch("update", "/api/session/:sessionID", {
      params,
      payload: Schema.Struct({ title: Text }),
      success: SessionInfo,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Rename a session"),
    HttpApiEndpoint.delete("delete", "/api/session/:sessionID", {
      params,
      success: HttpApiSchema.NoContent,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Stop any running turn, then delete the session"),
    HttpApiEndpoint.post("prompt", "/api/session/:sessionID/prompt", {
      params,
      payload: Schema.Struct({
        text: Text,
        agent: Schema.optionalKey(Schema.String),
        model: Schema.optionalKey(ModelName),
      }),
      success: Admitted,
      error: [SessionNotFoundError, InvalidRequestError, SessionQueueFullError],
    }).annotate(OpenApi.Summary, "Admit a user prompt; the turn runs asynchronously (queued behind a running turn)"),
    HttpApiEndpoint.post("synthetic", "/api/session/:sessionID/synthetic", {
      params,
      payload: Schema.Struct({
        text: Text,
        description: Schema.optionalKey(Schema.String),
        resume: Schema.optionalKey(Schema.Boolean),
      }),
      success: Admitted,
      error: [SessionNotFoundError, InvalidRequestError, SessionQueueFullError],
    }).annotate(OpenApi.Summary, "Admit a host notice (origin `host`); `resume` (default true) wakes the session"),
    HttpApiEndpoint.post("interrupt", "/api/session/:sessionID/interrupt", {
      params,
      success: HttpApiSchema.NoContent,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Stop the running or suspended turn"),
    HttpApiEndpoint.post("wait", "/api/session/:sessionID/wait", {
      params,
      success: SessionInfo,
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Return once no turn of the session runs; answers the session as it is then"),
    HttpApiEndpoint.post("resume", "/api/session/:sessionID/resume", {
      params,
      success: Schema.Struct({ resumed: Schema.Boolean }),
      error: [SessionNotFoundError, SessionBusyError],
    }).annotate(OpenApi.Summary, "Continue the session without adding a message"),
    HttpApiEndpoint.post("prune", "/api/session/:sessionID/prune", {
      params,
      payload: Schema.Struct({
        /** Part types to remove; default both. */
        types: Schema.optionalKey(
          Schema.Array(PrunableType).check(Schema.isMinLength(1, { message: "expected at least one part type" })),
        ),
      }),
      success: PruneSummary,
      error: [SessionNotFoundError, SessionBusyError],
    }).annotate(
      OpenApi.Summary,
      "Remove every tool and/or reasoning part (`types`, default both) of the completed assistant messages (between turns only)",
    ),
    HttpApiEndpoint.post("compact", "/api/session/:sessionID/compact", {
      params,
      success: CompactionStarted,
      error: [SessionNotFoundError, SessionBusyError],
    }).annotate(
      OpenApi.Summary,
      "Start a compaction turn: summarise the older transcript now (wait for the session to see the compaction message)",
    ),
    HttpApiEndpoint.post("erase", "/api/session/:sessionID/erase", {
      params,
      success: EraseSummary,
      error: SessionNotFoundError,
    }).annotate(
      OpenApi.Summary,
      "Replace the journaled payloads of superseded content with tombstones, then rebuild the database file",
    ),
  )
  .annotate(OpenApi.Description, "Sessions and their turns") {}
