import { PermissionReply as CorePermissionReply, PermissionRequest as CorePermissionRequest } from "@opencode-ai/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PermissionNotFoundError, SessionNotFoundError } from "./errors.ts"

export const PermissionRequest = CorePermissionRequest.annotate({
  identifier: "PermissionRequest",
  description: "A tool call waiting for the user's permission.",
})
export const PermissionReply = CorePermissionReply.annotate({ identifier: "PermissionReply" })

const params = { sessionID: Schema.String }

/** Pending permission asks of a session and their answers: `permission.*` operations. */
export class PermissionGroup extends HttpApiGroup.make("permission")
  .add(
    HttpApiEndpoint.get("list", "/api/session/:sessionID/permission", {
      params,
      success: Schema.Struct({ items: Schema.Array(PermissionRequest) }),
      error: SessionNotFoundError,
    }).annotate(OpenApi.Summary, "Tool calls of the session waiting for permission, oldest first"),
    HttpApiEndpoint.post("reply", "/api/session/:sessionID/permission/:permissionID", {
      params: { sessionID: Schema.String, permissionID: Schema.String },
      payload: Schema.Struct({
        reply: PermissionReply,
        /** With `reject`: told to the model, which then continues (without it the turn ends). */
        message: Schema.optionalKey(Schema.String),
      }),
      success: Schema.Struct({ id: Schema.String, reply: PermissionReply }),
      error: [SessionNotFoundError, PermissionNotFoundError],
    }).annotate(
      OpenApi.Summary,
      "Answer a pending ask: `once` runs the call, `always` also allows its patterns for the rest of the session, `reject` makes it a tool error (with `message`, the model continues)",
    ),
  )
  .annotate(OpenApi.Description, "Tool permissions") {}
