import { Schema } from "effect"

/**
 * The HTTP error bodies. Every one is a tagged JSON object with a human `message`; the `_tag`s and fields
 * are the public contract shared with the SDK (see DESIGN, "The mutation contract"). The mapping from the
 * core's tags lives in `src/http/errors.ts`.
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

export class PartNotFoundError extends Schema.TaggedError<PartNotFoundError>()(
  "PartNotFoundError",
  { sessionID: Schema.String, messageID: Schema.String, partID: Schema.String, message: Schema.String },
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

/** The addressed message or part exists, but the operation does not apply to it (`reason` says why). */
export class InvalidTargetError extends Schema.TaggedError<InvalidTargetError>()(
  "InvalidTargetError",
  {
    sessionID: Schema.String,
    messageID: Schema.String,
    partID: Schema.optional(Schema.String),
    reason: Schema.String,
    message: Schema.String,
  },
  { httpApiStatus: 400 },
) {}

/** The request could not be decoded (malformed JSON, wrong type, missing or out-of-range value). */
export class InvalidRequestError extends Schema.TaggedError<InvalidRequestError>()(
  "InvalidRequestError",
  { message: Schema.String, field: Schema.optional(Schema.String) },
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

/** No pending permission ask with this id in the session: never asked, or already answered. */
export class PermissionNotFoundError extends Schema.TaggedError<PermissionNotFoundError>()(
  "PermissionNotFoundError",
  { sessionID: Schema.String, permissionID: Schema.String, message: Schema.String },
  { httpApiStatus: 404 },
) {}

/** The durable log was asked for, but the event journal is off (`events.persist` is false). */
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

/** Something unexpected failed. `ref` identifies the server log entry with the details. */
export class UnknownError extends Schema.TaggedError<UnknownError>()(
  "UnknownError",
  { message: Schema.String, ref: Schema.String },
  { httpApiStatus: 500 },
) {}

/** Every error body the server can send, keyed by `_tag`. */
export const HttpErrors = [
  SessionNotFoundError,
  MessageNotFoundError,
  PartNotFoundError,
  PermissionNotFoundError,
  SessionBusyError,
  SessionQueueFullError,
  InvalidTargetError,
  InvalidRequestError,
  UnauthorizedError,
  NotFoundError,
  JournalDisabledError,
  PayloadTooLargeError,
  ForbiddenError,
  UnsupportedMediaTypeError,
  UnknownError,
] as const

export type HttpError = InstanceType<(typeof HttpErrors)[number]>
