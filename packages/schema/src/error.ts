import { Schema } from "effect"

/**
 * Failures of session operations, declared once: the host fails with these classes (Effect flavour), a
 * Promise plugin's call rejects with a plain object of the same `_tag`, fields and `message`, and the HTTP
 * layer maps each tag to its own (see the README's error table). Compare `_tag`; `message` is for humans.
 *
 * ```ts
 * try { await ctx.session.message.remove({ sessionID, messageID }) }
 * catch (e) { if (isSessionError(e, "Session.BusyError")) scheduleRetry() }
 * ```
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

/** The message exists but has no content item with this id (an assistant message's text, reasoning or tool). */
export class ItemNotFoundError extends Schema.TaggedError<ItemNotFoundError>()("Session.ItemNotFoundError", {
  sessionID: Schema.String,
  messageID: Schema.String,
  itemID: Schema.String,
}) {
  override get message() {
    return `Item ${this.itemID} not found in message ${this.messageID}`
  }
}

/**
 * The session's execution claim is held: a turn is running or suspended awaiting resume. Nothing changed.
 * Retry later with backoff; a retry is not a reservation.
 */
export class BusyError extends Schema.TaggedError<BusyError>()("Session.BusyError", {
  sessionID: Schema.String,
}) {
  override get message() {
    return `Session ${this.sessionID} is busy: a turn is running or waiting to resume`
  }
}

/**
 * The session's inbox is full: `limit` prompts and notices already wait behind the running turn (the
 * `session.queueLimit` config, default 100). Nothing was stored. The turn boundaries deliver the queue one
 * turn at a time; retry once it has drained, or interrupt (which delivers it all at once).
 */
export class QueueFullError extends Schema.TaggedError<QueueFullError>()("Session.QueueFullError", {
  sessionID: Schema.String,
  limit: Schema.Number,
}) {
  override get message() {
    return `Session ${this.sessionID} already has ${this.limit} inputs waiting behind the running turn (session.queueLimit); nothing was stored`
  }
}

/** The target exists but the operation does not apply to it (e.g. retracting an assistant message). */
export class InvalidTargetError extends Schema.TaggedError<InvalidTargetError>()("Session.InvalidTargetError", {
  sessionID: Schema.String,
  messageID: Schema.String,
  itemID: Schema.optional(Schema.String),
  reason: Schema.String,
}) {
  override get message() {
    return this.reason
  }
}

/**
 * The plugin's transcript rights do not cover this message: by default a plugin corrects and retracts only
 * messages whose origin is its own (`plugin:<id>`); a config entry `{ "path": ..., "transcript": "any" }`
 * grants every message. Nothing was committed.
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

/** Input refused before anything happened: empty text, wrong type, out-of-range value. */
export class InvalidInputError extends Schema.TaggedError<InvalidInputError>()("Session.InvalidInputError", {
  message: Schema.String,
  field: Schema.optional(Schema.String),
}) {}

/**
 * Input that would become larger than a limit once expanded (a command template filled with its
 * arguments); refused before anything is built or stored.
 */
export class TooLargeError extends Schema.TaggedError<TooLargeError>()("Session.TooLargeError", {
  message: Schema.String,
  limit: Schema.Number,
  command: Schema.optional(Schema.String),
}) {}

/** Every failure of a session operation. */
export const SessionError = Schema.Union([
  SessionNotFoundError,
  MessageNotFoundError,
  ItemNotFoundError,
  BusyError,
  QueueFullError,
  InvalidTargetError,
  InvalidInputError,
  ForbiddenError,
  TooLargeError,
])
export type SessionError = typeof SessionError.Type

export type SessionErrorTag = SessionError["_tag"]

/**
 * What a failure looks like as data: its `_tag`, its fields and its `message`, without the `Error`
 * machinery. A Promise plugin's call rejects with exactly this shape.
 */
export type SessionErrorBody<T extends SessionErrorTag = SessionErrorTag> = Extract<
  typeof SessionError.Encoded,
  { readonly _tag: T }
> & { readonly message: string }

/** Narrows an unknown rejection to a session error body, optionally of one tag. */
export const isSessionError = <T extends SessionErrorTag | undefined = undefined>(
  error: unknown,
  tag?: T,
): error is T extends SessionErrorTag ? SessionErrorBody<T> : SessionErrorBody =>
  typeof error === "object" &&
  error !== null &&
  typeof (error as { _tag?: unknown })._tag === "string" &&
  (tag === undefined
    ? (error as { _tag: string })._tag.startsWith("Session.")
    : (error as { _tag: string })._tag === tag)
