import { Schema } from "effect"

/** No pending ask with this id in this session: it never existed, or it was already answered. */
export class PermissionNotFoundError extends Schema.TaggedError<PermissionNotFoundError>()("Permission.NotFoundError", {
  sessionID: Schema.String,
  requestID: Schema.String,
}) {
  override get message() {
    return `Permission request ${this.requestID} is not pending in session ${this.sessionID} (never asked, or already answered)`
  }
}
