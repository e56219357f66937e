import { Schema } from "effect"

/**
 * Failures of session operations. The `_tag`s are the public contract: plugins compare them, the HTTP
 * layer maps them to its own tags and statuses (see DESIGN, "The mutation contract").
 */

export class SessionNotFoundError extends Schema.TaggedError<SessionNotFoundError>()("Session.NotFoundError", {
  sessionID: Schema.String,
}) {
  override get message() {
    return `Session ${this.sessionID} not found`
  }
}

export class MessageNotFoundError extends Schema.TaggedError<MessageNotFoundError>()("Session.MessageNotFoundError", {
  sessionID: Schema.String,
  messageID: Schema.String,
}) {
  override get message() {
    return `Message ${this.messageID} not found in session ${this.sessionID}`
  }
}

export class PartNotFoundError extends Schema.TaggedError<PartNotFoundError>()("Session.PartNotFoundError", {
  sessionID: Schema.String,
  messageID: Schema.String,
  partID: Schema.String,
}) {
  override get message() {
    return `Part ${this.partID} not found in message ${this.messageID}`
  }
}

/** The session's execution claim is held (a turn is running or suspended awaiting resume). Retry later. */
export class BusyError extends Schema.TaggedError<BusyError>()("Session.BusyError", {
  sessionID: Schema.String,
}) {
  override get message() {
    return `Session ${this.sessionID} is busy: a turn is running or waiting to resume`
  }
}

/** The addressed message or part exists but the operation does not apply to it. */
export class InvalidTargetError extends Schema.TaggedError<InvalidTargetError>()("Session.InvalidTargetError", {
  sessionID: Schema.String,
  messageID: Schema.String,
  partID: Schema.optional(Schema.String),
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

/**
 * A plugin asked for a transcript mutation its rights do not cover (DESIGN, "Transcript ownership for
 * plugins"): by default a plugin corrects and retracts only its own messages. Nothing was committed.
 */
export class ForbiddenError extends Schema.TaggedError<ForbiddenError>()("Session.ForbiddenError", {
  sessionID: Schema.String,
  messageID: Schema.String,
  pluginID: Schema.String,
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

export type SessionError =
  | SessionNotFoundError
  | MessageNotFoundError
  | PartNotFoundError
  | BusyError
  | InvalidTargetError
  | InvalidInputError
  | ForbiddenError

/** Input refused before anything happened: empty text, wrong type, out-of-range value. */
export class InvalidInputError extends Schema.TaggedError<InvalidInputError>()("Session.InvalidInputError", {
  message: Schema.String,
  field: Schema.optional(Schema.String),
}) {}
