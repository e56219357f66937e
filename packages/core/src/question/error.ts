import { Schema } from "effect"

/** No pending question with this id in this session: it never existed, belongs to another session, or was answered. */
export class QuestionNotFoundError extends Schema.TaggedError<QuestionNotFoundError>()("Question.NotFoundError", {
  sessionID: Schema.String,
  requestID: Schema.String,
}) {
  override get message() {
    return `Question request ${this.requestID} is not pending in session ${this.sessionID} (never asked, or already answered)`
  }
}
