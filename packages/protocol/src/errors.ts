import { Schema } from "effect"

/**
 * The HTTP error bodies. Every one is a tagged JSON object with a human `message`. Where upstream
 * OpenCode v2 names an error (`SessionNotFoundError`, `InvalidRequestError`, `InvalidCursorError`, ...) the
 * tag and fields are upstream's; the host's additions follow the same naming. The server maps the core's
 * failures to these in one place.
 */

export class SessionNotFoundError extends Schema.TaggedError<SessionNotFoundError>()(
  "SessionNotFoundError",
  { sessionID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

export class MessageNotFoundError extends Schema.TaggedError<MessageNotFoundError>()(
  "MessageNotFoundError",
  { sessionID: Schema.String, messageID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** The message has no content item with this id. */
export class ItemNotFoundError extends Schema.TaggedError<ItemNotFoundError>()(
  "ItemNotFoundError",
  { sessionID: Schema.String, messageID: Schema.String, itemID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** The session's execution claim is held (a turn runs, or waits to resume). Nothing changed; retry later. */
export class SessionBusyError extends Schema.TaggedError<SessionBusyError>()(
  "SessionBusyError",
  { sessionID: Schema.String, message: Schema.String },
  { httpApiStatus: 409 },
) {}

/**
 * The session already holds `limit` prompts and notices waiting behind its running turn (config
 * `session.queueLimit`, default 100). Nothing was stored; retry once the queue has drained.
 */
export class SessionQueueFullError extends Schema.TaggedError<SessionQueueFullError>()(
  "SessionQueueFullError",
  { sessionID: Schema.String, limit: Schema.Number, message: Schema.String },
  { httpApiStatus: 429 },
) {}

/** The addressed message or item exists, but the operation does not apply to it (`reason` says why). */
export class InvalidTargetError extends Schema.TaggedError<InvalidTargetError>()(
  "InvalidTargetError",
  {
    sessionID: Schema.String,
    messageID: Schema.String,
    itemID: Schema.optional(Schema.String),
    reason: Schema.String,
    message: Schema.String,
  },
  { httpApiStatus: 400 },
) {}

/** The request could not be decoded (malformed JSON, wrong type, missing or out-of-range value). */
export class InvalidRequestError extends Schema.TaggedError<InvalidRequestError>()(
  "InvalidRequestError",
  { message: Schema.String, kind: Schema.optional(Schema.String), field: Schema.optional(Schema.String) },
  { httpApiStatus: 400 },
) {}

/** A pagination cursor that does not decode, or belongs to another listing (session, filter or order). */
export class InvalidCursorError extends Schema.TaggedError<InvalidCursorError>()(
  "InvalidCursorError",
  { message: Schema.String },
  { httpApiStatus: 400 },
) {}

/** Credentials are required (the server was started with a password) and were missing or wrong. */
export class UnauthorizedError extends Schema.TaggedError<UnauthorizedError>()(
  "UnauthorizedError",
  { message: Schema.String },
  { httpApiStatus: 401 },
) {}

/** No route matches the method and path. */
export class NotFoundError extends Schema.TaggedError<NotFoundError>()(
  "NotFoundError",
  { message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** No pending question request with this id in the session: never asked, another session's, or already answered. */
export class QuestionNotFoundError extends Schema.TaggedError<QuestionNotFoundError>()(
  "QuestionNotFoundError",
  { requestID: Schema.String, sessionID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** No pending permission request with this id in the session: never asked, or already answered. */
export class PermissionNotFoundError extends Schema.TaggedError<PermissionNotFoundError>()(
  "PermissionNotFoundError",
  { sessionID: Schema.String, requestID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** No usable provider with this id. */
export class ProviderNotFoundError extends Schema.TaggedError<ProviderNotFoundError>()(
  "ProviderNotFoundError",
  { providerID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** The session's durable history was asked for, but the event journal is off (`events.persist: false`). */
export class JournalDisabledError extends Schema.TaggedError<JournalDisabledError>()(
  "JournalDisabledError",
  { message: Schema.String },
  { httpApiStatus: 409 },
) {}

/** The request body is larger than the server's limit; it was refused before being parsed. */
export class PayloadTooLargeError extends Schema.TaggedError<PayloadTooLargeError>()(
  "PayloadTooLargeError",
  { message: Schema.String, limit: Schema.Number },
  { httpApiStatus: 413 },
) {}

/**
 * The request was refused before routing: its `Host` is not loopback or listed in `server.allowedHosts`
 * while the server has no password (DNS-rebinding defence), or a CORS preflight came from an origin that
 * is not allowed.
 */
export class ForbiddenError extends Schema.TaggedError<ForbiddenError>()(
  "ForbiddenError",
  { message: Schema.String },
  { httpApiStatus: 403 },
) {}

/** The request has a body that is not JSON (`Content-Type` missing or not `application/json`). */
export class UnsupportedMediaTypeError extends Schema.TaggedError<UnsupportedMediaTypeError>()(
  "UnsupportedMediaTypeError",
  { message: Schema.String },
  { httpApiStatus: 415 },
) {}

/**
 * Something unexpected failed. `ref` identifies the server log entry with the details. Carries upstream's
 * `{ name, data: { message, ref } }` beside the tagged fields, so both kinds of client read it.
 */
export class UnknownError extends Schema.TaggedError<UnknownError>()(
  "UnknownError",
  {
    message: Schema.String,
    ref: Schema.String,
    name: Schema.Literal("UnknownError"),
    data: Schema.Struct({ message: Schema.String, ref: Schema.String }),
  },
  { httpApiStatus: 500 },
) {}

/** An `UnknownError` body for a ref. */
export const unknown = (ref: string) => {
  const message = `Unexpected server error (ref ${ref}); see the server log`
  return new UnknownError({ message, ref, name: "UnknownError", data: { message, ref } })
}

/** Every error body the server can send, keyed by `_tag`. */
export const HttpErrors = [
  SessionNotFoundError,
  MessageNotFoundError,
  ItemNotFoundError,
  PermissionNotFoundError,
  ProviderNotFoundError,
  SessionBusyError,
  SessionQueueFullError,
  InvalidTargetError,
  InvalidRequestError,
  InvalidCursorError,
  UnauthorizedError,
  NotFoundError,
  JournalDisabledError,
  PayloadTooLargeError,
  ForbiddenError,
  UnsupportedMediaTypeError,
  UnknownError,
] as const

export type HttpError = InstanceType<(typeof HttpErrors)[number]>
