import {
  callInput,
  type SessionEvent,
  type SessionMessage,
  type SyntheticMessage,
  syntheticMessage,
  type UserMessage,
  userMessage,
} from "@opencode-ai/schema"

/**
 * The transcript as stored and served: upstream OpenCode v2's `SessionMessage` union plus the host's
 * extra facts (origin, seq, retraction, correction, queueing). The shapes are declared once in
 * `@opencode-ai/schema`; plugins, the HTTP API and the SDK see exactly these.
 */
export type {
  AgentSwitchedMessage,
  AssistantItem,
  AssistantMessage,
  Change,
  CompactionMessage,
  ErrorInfo,
  ModelSwitchedMessage,
  Origin,
  ReasoningItem,
  SessionMessage as Message,
  SyntheticMessage,
  TextItem,
  ToolItem,
  ToolState,
  UserMessage,
} from "@opencode-ai/schema"

export type PromptData = typeof SessionEvent.PromptAdmitted.data.Type
export type NoticeData = typeof SessionEvent.Synthetic.data.Type

/**
 * Input accepted while a turn holds the session, as the inbox keeps it: the event its delivery commits
 * (`prompt.admitted` for a prompt, `synthetic` for a notice), and whether that delivery wakes the session.
 */
export type Queued =
  | { readonly kind: "prompt"; readonly data: PromptData; readonly wake: boolean; readonly time: number }
  | { readonly kind: "synthetic"; readonly data: NoticeData; readonly wake: boolean; readonly time: number }

export { callInput, syntheticMessage, userMessage }

/** A queued input as a message: readable by id at once, `queued`, with seq 0 until its delivery. */
export const queuedMessage = (sessionID: string, item: Queued): SessionMessage => ({
  ...(item.kind === "prompt"
    ? userMessage(sessionID, 0, item.time, item.data)
    : syntheticMessage(sessionID, 0, item.time, item.data)),
  queued: true,
})

/** Whether a message is input a client or plugin put into the transcript (a prompt or a notice). */
export const isInput = (message: SessionMessage): message is UserMessage | SyntheticMessage =>
  message.type === "user" || message.type === "synthetic"
