/** The failures of session operations; declared in `@opencode-ai/schema`, re-exported for plugin authors. */
export {
  BusyError,
  ForbiddenError,
  InvalidInputError,
  InvalidTargetError,
  isSessionError,
  MessageNotFoundError,
  ItemNotFoundError,
  QueueFullError,
  SessionError,
  SessionNotFoundError,
  TooLargeError,
} from "@opencode-ai/schema"
export type { SessionErrorBody, SessionErrorTag } from "@opencode-ai/schema"
