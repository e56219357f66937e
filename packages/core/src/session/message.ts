import { CompactionMessage, SyntheticMessage, UserMessage } from "@opencode-ai/plugin"
import { Schema } from "effect"

/**
 * The transcript as stored and served. The shapes are declared once in `@opencode-ai/plugin` (plugins,
 * the HTTP API and the SDK see exactly these) and re-exported here for the core's modules.
 */
export {
  AssistantMessage,
  CompactionMessage,
  Message,
  MessageError,
  Origin,
  Part,
  ReasoningPart,
  Retraction,
  SyntheticMessage,
  TextPart,
  ToolPart,
  ToolState,
  Usage,
  UserMessage,
} from "@opencode-ai/plugin"

/** A user or synthetic message as admitted, before it has a seq (it may wait in the inbox). */
export const InputMessage = Schema.Union([
  UserMessage.mapFields(({ seq: _, ...rest }) => rest).annotate({ identifier: "InputUserMessage" }),
  SyntheticMessage.mapFields(({ seq: _, ...rest }) => rest).annotate({ identifier: "InputSyntheticMessage" }),
]).annotate({ identifier: "InputMessage" })
export type InputMessage = typeof InputMessage.Type

/** A compaction as committed, before it has a seq. */
export const CompactionInput = CompactionMessage.mapFields(({ seq: _, ...rest }) => rest)
export type CompactionInput = typeof CompactionInput.Type
