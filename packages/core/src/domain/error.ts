/**
 * Failures of session operations. Declared once in `@opencode-ai/schema` (their `_tag`s are the public
 * contract plugins compare); re-exported here for the core's modules. The HTTP layer maps each to its own
 * tag and status.
 */
export {
  BusyError,
  ForbiddenError,
  InvalidInputError,
  InvalidTargetError,
  MessageNotFoundError,
  ItemNotFoundError,
  QueueFullError,
  SessionError,
  SessionNotFoundError,
  TooLargeError,
} from "@opencode-ai/schema"
