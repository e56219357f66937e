import { PermissionReply, PermissionRequest } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { data } from "./envelope.ts"
import { InvalidRequestError, PermissionNotFoundError, SessionNotFoundError } from "./errors.ts"
import { RequestParams, SessionParams } from "./params.ts"

/**
 * A session's pending permission requests and their answers, at upstream OpenCode v2's paths. A request is a
 * tool call waiting for the user: `metadata` carries what they need to decide (`diff`, `input`).
 */
export class SessionPermissionGroup extends HttpApiGroup.make("v2.session.permission")
  .add(
    HttpApiEndpoint.get("list", "/api/session/:sessionID/permission", {
      params: SessionParams,
      success: data(Schema.Array(PermissionRequest)),
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "The session's pending permission requests, oldest first"),
    HttpApiEndpoint.get("get", "/api/session/:sessionID/permission/:requestID", {
      params: RequestParams,
      success: data(PermissionRequest),
      error: [SessionNotFoundError, PermissionNotFoundError],
    }).annotate(OpenApi.Summary, "One pending permission request"),
    HttpApiEndpoint.post("reply", "/api/session/:sessionID/permission/:requestID/reply", {
      params: RequestParams,
      payload: Schema.Struct({
        reply: PermissionReply,
        /** With `reject`: told to the model, which then continues (without it the turn ends). */
        message: Schema.optionalKey(Schema.String),
      }),
      success: HttpApiSchema.NoContent,
      error: [SessionNotFoundError, PermissionNotFoundError, InvalidRequestError],
    }).annotate(
      OpenApi.Summary,
      "Answer a pending request: `once` runs the call, `always` also allows its `save` patterns for the rest of the session, `reject` makes it a tool error (with `message`, the model continues)",
    ),
  )
  .annotate(OpenApi.Description, "Tool permissions") {}
