/**
 * The transcript and session shapes plugins read: upstream OpenCode v2's, declared once in
 * `@opencode-ai/schema` (the host stores and serves exactly these) and re-exported here. Every message and
 * every assistant content item has a stable id that no correction, removal or retraction changes.
 */
export {
  AgentSwitchedMessage,
  AssistantItem,
  AssistantMessage,
  Change,
  CompactionMessage,
  ErrorInfo,
  ModelRef,
  ModelSwitchedMessage,
  Origin,
  Page,
  PageCursor,
  ReasoningItem,
  SessionInfo,
  SessionMessage,
  SessionMessage as Message,
  SessionStatus,
  SyntheticMessage,
  TextItem,
  Tokens,
  ToolItem,
  ToolState,
  UserMessage,
} from "@opencode-ai/schema"
