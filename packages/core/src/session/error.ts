/**
 * Failures of session operations. Declared once in `@opencode-ai/plugin` (their `_tag`s are the public
 * contract plugins compare); re-exported here for the core's modules. The HTTP layer maps them to its
 * own tags and statuses (see DESIGN, "The mutation contract").
 */
export {
  BusyError,
  ForbiddenError,
  InvalidInputError,
  InvalidTargetError,
  MessageNotFoundError,
  PartNotFoundError,
  QueueFullError,
  SessionError,
  SessionNotFoundError,
} from "@opencode-ai/plugin"
