import type { SessionEvent, SessionMessage, SyntheticMessage, ToolItem, UserMessage } from "@opencode-ai/schema"

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

/** The user message a delivered prompt becomes. */
export const userMessage = (sessionID: string, seq: number, time: number, data: PromptData): UserMessage => ({
  id: data.messageID,
  sessionID,
  seq,
  origin: data.origin,
  type: "user",
  time: { created: time },
  text: data.prompt.text,
  ...(data.prompt.files ? { files: data.prompt.files } : {}),
  ...(data.prompt.agents ? { agents: data.prompt.agents } : {}),
  ...(data.agent !== undefined ? { agent: data.agent } : {}),
  ...(data.model !== undefined ? { model: data.model } : {}),
})

/** The synthetic message a delivered notice becomes. */
export const syntheticMessage = (
  sessionID: string,
  seq: number,
  time: number,
  data: NoticeData,
): SyntheticMessage => ({
  id: data.messageID,
  sessionID,
  seq,
  origin: data.origin,
  type: "synthetic",
  time: { created: time },
  text: data.text,
  ...(data.description !== undefined ? { description: data.description } : {}),
})

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

/** The arguments a stored tool item was called with (a pending item holds them as the streamed JSON). */
export const callInput = (item: ToolItem): Record<string, unknown> => {
  if (item.state.status !== "pending") return item.state.input
  try {
    const parsed: unknown = JSON.parse(item.state.input || "{}")
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}
