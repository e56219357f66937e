import {
  BusyError as CoreBusyError,
  InvalidInputError as CoreInvalidInputError,
  InvalidTargetError as CoreInvalidTargetError,
  ItemNotFoundError as CoreItemNotFoundError,
  MessageNotFoundError as CoreMessageNotFoundError,
  PermissionNotFoundError as CorePermissionNotFoundError,
  QuestionNotFoundError as CoreQuestionNotFoundError,
  QueueFullError as CoreQueueFullError,
  SessionNotFoundError as CoreSessionNotFoundError,
  TooLargeError as CoreTooLargeError,
} from "@opencode-ai/core"
import {
  InvalidCursorError,
  InvalidRequestError,
  InvalidTargetError,
  ItemNotFoundError,
  MessageNotFoundError,
  PayloadTooLargeError,
  PermissionNotFoundError,
  QuestionNotFoundError,
  SessionBusyError,
  SessionNotFoundError,
  SessionQueueFullError,
  unknown,
} from "@opencode-ai/protocol"
import { Cause, Effect } from "effect"

/** The core's session failures, which the HTTP layer translates. */
export type CoreError =
  | CoreSessionNotFoundError
  | CoreMessageNotFoundError
  | CoreItemNotFoundError
  | CoreBusyError
  | CoreInvalidTargetError
  | CoreInvalidInputError
  | CorePermissionNotFoundError
  | CoreQuestionNotFoundError
  | CoreQueueFullError
  | CoreTooLargeError

/** The HTTP error each core error becomes, at the type level (distributes over unions). */
export type ToHttp<E> = E extends CoreSessionNotFoundError
  ? SessionNotFoundError
  : E extends CoreMessageNotFoundError
    ? MessageNotFoundError
    : E extends CoreItemNotFoundError
      ? ItemNotFoundError
      : E extends CoreBusyError
        ? SessionBusyError
        : E extends CoreInvalidTargetError
          ? InvalidTargetError
          : E extends CoreInvalidInputError
            ? InvalidRequestError
            : E extends CorePermissionNotFoundError
              ? PermissionNotFoundError
              : E extends CoreQueueFullError
                ? SessionQueueFullError
                : E extends CoreQuestionNotFoundError
                  ? QuestionNotFoundError
                  : E extends CoreTooLargeError
                    ? PayloadTooLargeError
                    : never

/** The one place where core tags become HTTP tags; fields are kept, `message` is the core's text. */
export const toHttpError = (error: CoreError) => {
  switch (error._tag) {
    case "Session.NotFoundError":
      return new SessionNotFoundError({ sessionID: error.sessionID, message: error.message })
    case "Session.MessageNotFoundError":
      return new MessageNotFoundError({
        sessionID: error.sessionID,
        messageID: error.messageID,
        message: error.message,
      })
    case "Session.ItemNotFoundError":
      return new ItemNotFoundError({
        sessionID: error.sessionID,
        messageID: error.messageID,
        itemID: error.itemID,
        message: error.message,
      })
    case "Session.BusyError":
      return new SessionBusyError({ sessionID: error.sessionID, message: error.message })
    case "Session.InvalidTargetError":
      return new InvalidTargetError({
        sessionID: error.sessionID,
        messageID: error.messageID,
        ...(error.itemID !== undefined ? { itemID: error.itemID } : {}),
        reason: error.reason,
        message: error.message,
      })
    case "Permission.NotFoundError":
      return new PermissionNotFoundError({
        sessionID: error.sessionID,
        requestID: error.requestID,
        message: error.message,
      })
    case "Question.NotFoundError":
      return new QuestionNotFoundError({
        sessionID: error.sessionID,
        requestID: error.requestID,
        message: error.message,
      })
    case "Session.QueueFullError":
      return new SessionQueueFullError({ sessionID: error.sessionID, limit: error.limit, message: error.message })
    case "Session.TooLargeError":
      return new PayloadTooLargeError({ message: error.message, limit: error.limit })
    case "Session.InvalidInputError":
      // A cursor that does not decode, or belongs to another listing, is upstream's `InvalidCursorError`
      // (only paged listings take one: see `fromCoreListing`).
      return error.field === "cursor"
        ? new InvalidCursorError({ message: error.message })
        : new InvalidRequestError({
            message: error.message,
            ...(error.field !== undefined ? { field: error.field } : {}),
          })
  }
}

/** Translates the core failures of `effect` into their HTTP counterparts. */
export const fromCore = <A, E extends CoreError, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, ToHttp<E>, R> =>
  Effect.mapError(effect, toHttpError) as Effect.Effect<A, ToHttp<E>, R>

/** `fromCore` for a paged listing, whose cursor refusals are `InvalidCursorError`. */
export const fromCoreListing = <A, E extends CoreError, R>(
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, ToHttp<E> | InvalidCursorError, R> =>
  Effect.mapError(effect, toHttpError) as Effect.Effect<A, ToHttp<E> | InvalidCursorError, R>

let counter = 0
/** A short, unique reference for an unexpected failure, printed in the log and returned to the client. */
export const makeRef = () => `err_${Date.now().toString(36)}${(counter++ % 1296).toString(36).padStart(2, "0")}`

/** Logs an unexpected failure (with its full cause) under a fresh ref; the body carries only the ref. */
export const unknownError = (cause: Cause.Cause<unknown>, context: string) =>
  Effect.gen(function* () {
    const ref = makeRef()
    yield* Effect.logError(`${context} failed unexpectedly (ref ${ref})`, cause)
    return unknown(ref)
  })

/** The same as `unknownError`, for code outside an Effect (the request front door). */
export const unknownErrorSync = (cause: unknown, context: string) => {
  const ref = makeRef()
  console.error(`${context} failed unexpectedly (ref ${ref})`, cause)
  return unknown(ref)
}
