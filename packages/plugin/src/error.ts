/**
 * What a failed session operation rejects with (Promise flavour) or fails with (Effect flavour): a plain
 * object with a `_tag` and the fields that identify the target. Compare `_tag`; `message` is for humans.
 *
 * ```ts
 * try { await ctx.session.message.remove({ sessionID, messageID }) }
 * catch (e) { if (isSessionError(e, "Session.BusyError")) scheduleRetry() }
 * ```
 */
export interface SessionNotFoundError {
  readonly _tag: "Session.NotFoundError"
  readonly sessionID: string
  readonly message: string
}

export interface MessageNotFoundError {
  readonly _tag: "Session.MessageNotFoundError"
  readonly sessionID: string
  readonly messageID: string
  readonly message: string
}

export interface PartNotFoundError {
  readonly _tag: "Session.PartNotFoundError"
  readonly sessionID: string
  readonly messageID: string
  readonly partID: string
  readonly message: string
}

/** The session's turn is running or suspended awaiting resume. Retry later with backoff; it is not a reservation. */
export interface BusyError {
  readonly _tag: "Session.BusyError"
  readonly sessionID: string
  readonly message: string
}

/** The target exists but the operation does not apply to it (e.g. retracting an assistant message). */
export interface InvalidTargetError {
  readonly _tag: "Session.InvalidTargetError"
  readonly sessionID: string
  readonly messageID: string
  readonly partID?: string
  readonly reason: string
  readonly message: string
}

/**
 * The plugin's transcript rights do not cover this message: by default a plugin corrects and retracts only
 * messages whose origin is its own (`plugin:<id>`); a config entry `{ "path": ..., "transcript": "any" }`
 * grants every message. Nothing was committed.
 */
export interface ForbiddenError {
  readonly _tag: "Session.ForbiddenError"
  readonly sessionID: string
  readonly messageID: string
  readonly pluginID: string
  readonly reason: string
  readonly message: string
}

/** Input the host refused before doing anything (empty text, wrong type). */
export interface InvalidInputError {
  readonly _tag: "Session.InvalidInputError"
  readonly message: string
  readonly field?: string
}

export type SessionError =
  | SessionNotFoundError
  | MessageNotFoundError
  | PartNotFoundError
  | BusyError
  | InvalidTargetError
  | InvalidInputError
  | ForbiddenError

export type SessionErrorTag = SessionError["_tag"]

/** Narrows an unknown rejection to a session error, optionally of one tag. */
export const isSessionError = <T extends SessionErrorTag | undefined = undefined>(
  error: unknown,
  tag?: T,
): error is T extends SessionErrorTag ? Extract<SessionError, { _tag: T }> : SessionError =>
  typeof error === "object" &&
  error !== null &&
  typeof (error as { _tag?: unknown })._tag === "string" &&
  (tag === undefined ? (error as { _tag: string })._tag.startsWith("Session.") : (error as { _tag: string })._tag === tag)
