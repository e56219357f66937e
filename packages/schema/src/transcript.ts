import type { SessionEvent } from "./event.ts"
import type {
  AssistantItem,
  AssistantMessage,
  Change,
  SessionMessage,
  SyntheticMessage,
  ToolItem,
  UserMessage,
} from "./message.ts"

/**
 * How a durable event changes the transcript, in one place: the host's projector (which stores the result),
 * the web client's live view and the tests' subscribers all apply events with these functions, so the
 * three cannot disagree. Pure: time and seq come from the event.
 */

/** A committed event as the functions read it: its type, its (encoded) data, and where it sits. */
export interface TranscriptEvent {
  readonly type: string
  readonly seq: number
  readonly time: number
  readonly sessionID: string
  readonly data: unknown
}

type DataOf<D extends { data: { Type: unknown } }> = D["data"]["Type"]
type PromptData = DataOf<typeof SessionEvent.PromptAdmitted>
type NoticeData = DataOf<typeof SessionEvent.Synthetic>

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
  ...(data.subtask !== undefined ? { subtask: data.subtask } : {}),
})

/** The synthetic message a delivered notice becomes. */
export const syntheticMessage = (sessionID: string, seq: number, time: number, data: NoticeData): SyntheticMessage => ({
  id: data.messageID,
  sessionID,
  seq,
  origin: data.origin,
  type: "synthetic",
  time: { created: time },
  text: data.text,
  ...(data.description !== undefined ? { description: data.description } : {}),
})

/** The message an event puts into the transcript, when it is one that does (a delivery, a step...). */
export const createdMessage = (event: TranscriptEvent): SessionMessage | undefined => {
  const base = { sessionID: event.sessionID, seq: event.seq }
  const d = event.data as Record<string, any>
  switch (event.type) {
    case "session.next.prompt.admitted":
      return userMessage(event.sessionID, event.seq, event.time, d as PromptData)
    case "session.next.synthetic":
      return syntheticMessage(event.sessionID, event.seq, event.time, d as NoticeData)
    case "session.next.step.started":
      return {
        ...base,
        id: d.assistantMessageID,
        origin: "host",
        type: "assistant",
        time: { created: event.time },
        agent: d.agent,
        model: d.model,
        content: [],
        turnID: d.turnID,
        ...(d.snapshot !== undefined ? { snapshot: { start: d.snapshot } } : {}),
      }
    case "session.next.compaction.ended":
      return {
        ...base,
        id: d.messageID,
        origin: "host",
        type: "compaction",
        time: { created: event.time },
        reason: d.reason,
        ...(d.overflow ? { overflow: true as const } : {}),
        summary: d.text,
        recent: d.recent,
        ...(d.promptID !== undefined ? { promptID: d.promptID } : {}),
        through: d.through,
        ...(d.model ? { model: d.model } : {}),
        ...(d.tokens ? { tokens: d.tokens } : {}),
      }
    case "session.next.agent.switched":
      return {
        ...base,
        id: d.messageID,
        origin: "user",
        type: "agent-switched",
        time: { created: event.time },
        agent: d.agent,
      }
    case "session.next.model.switched":
      return {
        ...base,
        id: d.messageID,
        origin: "user",
        type: "model-switched",
        time: { created: event.time },
        model: d.model,
      }
    default:
      return undefined
  }
}

/** The ids of the existing messages an event changes (an item event names its assistant message). */
export const changedMessages = (event: TranscriptEvent): ReadonlyArray<string> => {
  const d = event.data as Record<string, any>
  switch (event.type) {
    case "session.next.pruned":
      return (d.messages as ReadonlyArray<{ messageID: string }>).map((entry) => entry.messageID)
    case "session.next.text.corrected":
    case "session.next.message.retracted":
      return [d.messageID]
    default:
      return event.type.startsWith("session.next.") &&
        typeof d?.assistantMessageID === "string" &&
        event.type !== "session.next.step.started"
        ? [d.assistantMessageID]
        : []
  }
}

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

/**
 * A tool item whose input and output left the transcript: the item, its name and status stay. A failed
 * call's error message is its output (what the model read back), so it goes too; the error's name stays.
 * The title goes as well: it is written from the input (`bash <command>`, `edit <path>`).
 */
export const prunedTool = (item: ToolItem, time: number, by: string): ToolItem => {
  const state = item.state
  const emptied: ToolItem["state"] =
    state.status === "pending"
      ? { status: "pending", input: "" }
      : state.status === "running"
        ? { status: "running", input: {}, structured: {}, content: [] }
        : state.status === "completed"
          ? { status: "completed", input: {}, structured: {}, content: [] }
          : { status: "error", input: {}, structured: {}, content: [], error: { ...state.error, message: "" } }
  const { title: _title, ...kept } = item
  return { ...kept, state: emptied, time: { ...item.time, pruned: time }, prunedBy: by }
}

const removeReasoning = (message: AssistantMessage, ids: ReadonlySet<string>): AssistantMessage => ({
  ...message,
  content: message.content.filter((item) => !(item.type === "reasoning" && ids.has(item.id))),
  removed: [...(message.removed ?? []), ...ids],
})

const mapItem = (
  message: AssistantMessage,
  match: (item: AssistantItem) => boolean,
  update: (item: AssistantItem) => AssistantItem,
): AssistantMessage => {
  const index = message.content.findIndex(match)
  if (index === -1) throw new Error(`no such item in message ${message.id}`)
  return { ...message, content: message.content.map((item, i) => (i === index ? update(item) : item)) }
}

const asTool = (item: AssistantItem): ToolItem => {
  if (item.type !== "tool") throw new Error(`item ${item.id} is not a tool call`)
  return item
}

const byID = (id: string) => (item: AssistantItem) => item.id === id
const byCall = (callID: string) => (item: AssistantItem) => item.type === "tool" && item.callID === callID

/**
 * Applies an event to one message it changes (see `changedMessages`). Throws when the event cannot apply
 * (the message is of the wrong kind, the item is missing): the journal would be inconsistent.
 */
export const updateMessage = (message: SessionMessage, event: TranscriptEvent): SessionMessage => {
  const d = event.data as Record<string, any>
  if (event.type === "session.next.text.corrected") {
    const corrected: Change = { time: event.time, by: d.by }
    if (d.itemID === undefined) {
      if (message.type === "compaction") return { ...message, summary: d.text, corrected }
      if (message.type !== "user" && message.type !== "synthetic")
        throw new Error(`${event.type}: message ${message.id} has no text of its own`)
      return { ...message, text: d.text, corrected }
    }
    return mapItem(assistantOf(message, event), byID(d.itemID), (item) =>
      item.type === "text" ? { ...item, text: d.text, corrected } : item,
    )
  }
  if (event.type === "session.next.message.retracted") {
    const retracted = { retracted: { time: event.time, by: d.by }, placeholder: d.placeholder }
    // A retracted summary goes whole: model requests send the transcript it covered again.
    if (message.type === "compaction") return { ...message, summary: "", recent: "", ...retracted }
    if (message.type !== "user" && message.type !== "synthetic")
      throw new Error(`${event.type}: message ${message.id} cannot be retracted`)
    const { files: _files, agents: _agents, ...kept } = message as UserMessage
    return { ...kept, text: "", ...retracted } as SessionMessage
  }
  const assistant = assistantOf(message, event)
  switch (event.type) {
    case "session.next.step.ended":
      return {
        ...assistant,
        time: { ...assistant.time, completed: event.time },
        finish: d.finish,
        cost: d.cost,
        tokens: d.tokens,
      }
    case "session.next.step.failed":
      return {
        ...assistant,
        time: { ...assistant.time, completed: event.time },
        finish: d.finish ?? "error",
        error: d.error,
        ...(d.tokens ? { tokens: d.tokens } : {}),
      }
    case "session.next.text.started":
      return { ...assistant, content: [...assistant.content, { type: "text", id: d.textID, text: "" }] }
    case "session.next.text.appended":
      return mapItem(assistant, byID(d.textID), (item) =>
        item.type === "text" ? { ...item, text: item.text.slice(0, d.offset) + d.text } : item,
      )
    case "session.next.text.ended":
      return mapItem(assistant, byID(d.textID), (item) => (item.type === "text" ? { ...item, text: d.text } : item))
    case "session.next.reasoning.started":
      return {
        ...assistant,
        content: [
          ...assistant.content,
          {
            type: "reasoning",
            id: d.reasoningID,
            text: "",
            ...(d.providerMetadata ? { providerMetadata: d.providerMetadata } : {}),
            time: { created: event.time },
          },
        ],
      }
    case "session.next.reasoning.appended":
      return mapItem(assistant, byID(d.reasoningID), (item) =>
        item.type === "reasoning" ? { ...item, text: item.text.slice(0, d.offset) + d.text } : item,
      )
    case "session.next.reasoning.ended":
      return mapItem(assistant, byID(d.reasoningID), (item) =>
        item.type === "reasoning"
          ? {
              ...item,
              text: d.text,
              ...(d.providerMetadata ? { providerMetadata: d.providerMetadata } : {}),
              time: { created: item.time?.created ?? event.time, completed: event.time },
            }
          : item,
      )
    case "session.next.tool.input.started":
      return {
        ...assistant,
        content: [
          ...assistant.content,
          {
            type: "tool",
            id: d.itemID,
            callID: d.callID,
            name: d.name,
            state: { status: "pending", input: "" },
            time: { created: event.time },
          },
        ],
      }
    case "session.next.tool.input.ended":
      return mapItem(assistant, byCall(d.callID), (item) => ({
        ...asTool(item),
        state: { status: "pending", input: d.text },
      }))
    case "session.next.tool.called": {
      const running = {
        state: { status: "running" as const, input: d.input, structured: {}, content: [] },
        ...(d.title !== undefined ? { title: d.title } : {}),
        provider: { executed: d.provider.executed },
      }
      // A provider that sends whole calls (no streamed input) starts the item here.
      if (!assistant.content.some(byCall(d.callID)))
        return {
          ...assistant,
          content: [
            ...assistant.content,
            {
              type: "tool",
              id: d.itemID,
              callID: d.callID,
              name: d.tool,
              ...running,
              time: { created: event.time, ran: event.time },
            },
          ],
        }
      return mapItem(assistant, byCall(d.callID), (item) => {
        const call = asTool(item)
        return { ...call, ...running, time: { ...call.time, ran: event.time } }
      })
    }
    case "session.next.tool.progress":
      return mapItem(assistant, byCall(d.callID), (item) => {
        const call = asTool(item)
        return {
          ...call,
          state: { status: "running", input: callInput(call), structured: d.structured, content: d.content },
        }
      })
    case "session.next.tool.success":
      return mapItem(assistant, byCall(d.callID), (item) => {
        const call = asTool(item)
        return {
          ...call,
          ...(d.title !== undefined ? { title: d.title } : {}),
          state: {
            status: "completed",
            input: callInput(call),
            content: d.content,
            structured: d.structured,
            ...(d.outputPaths ? { outputPaths: d.outputPaths } : {}),
            ...(d.result !== undefined ? { result: d.result } : {}),
          },
          time: { ...call.time, completed: event.time },
        }
      })
    case "session.next.tool.failed":
      return mapItem(assistant, byCall(d.callID), (item) => {
        const call = asTool(item)
        return {
          ...call,
          ...(d.title !== undefined ? { title: d.title } : {}),
          state: {
            status: "error",
            input: callInput(call),
            content: [],
            structured: d.structured ?? {},
            error: d.error,
            ...(d.result !== undefined ? { result: d.result } : {}),
          },
          time: { ...call.time, completed: event.time },
        }
      })
    case "session.next.tool.pruned":
      return mapItem(assistant, byID(d.itemID), (item) => prunedTool(asTool(item), event.time, d.by))
    case "session.next.reasoning.removed":
      return removeReasoning(assistant, new Set([d.reasoningID]))
    case "session.next.pruned": {
      const entry = (d.messages as ReadonlyArray<{ messageID: string; itemIDs: ReadonlyArray<string> }>).find(
        (m) => m.messageID === message.id,
      )
      const ids = new Set(entry?.itemIDs ?? [])
      const reasoning = new Set(
        assistant.content.filter((item) => item.type === "reasoning" && ids.has(item.id)).map((item) => item.id),
      )
      const pruned: AssistantMessage = {
        ...assistant,
        content: assistant.content.map((item) =>
          item.type === "tool" && ids.has(item.id) ? prunedTool(item, event.time, d.by) : item,
        ),
      }
      return reasoning.size > 0 ? removeReasoning(pruned, reasoning) : pruned
    }
    default:
      return message
  }
}

const assistantOf = (message: SessionMessage, event: TranscriptEvent): AssistantMessage => {
  if (message.type !== "assistant") throw new Error(`${event.type}: message ${message.id} is not an assistant message`)
  return message
}

/**
 * After a correction or retraction of a prompt that a compaction restates: the compaction's `recent` as the
 * prompt now stands (corrected, or emptied by a retraction). Undefined when the event changes no such text.
 */
export const restatedText = (
  event: TranscriptEvent,
): { readonly promptID: string; readonly text: string } | undefined => {
  const d = event.data as Record<string, any>
  if (event.type === "session.next.text.corrected" && d.itemID === undefined)
    return { promptID: d.messageID, text: d.text }
  if (event.type === "session.next.message.retracted") return { promptID: d.messageID, text: "" }
  return undefined
}

/**
 * A reader's whole view of one session's transcript: the delivered messages in seq order, then the input
 * still waiting behind a running turn (`queued`, seq 0). Folds a durable event into it; events that do not
 * change the transcript return it unchanged. Used by clients that follow a session's events live.
 */
export const applyEvent = (
  messages: ReadonlyArray<SessionMessage>,
  event: TranscriptEvent,
): ReadonlyArray<SessionMessage> => {
  const d = event.data as Record<string, any>
  if (event.type === "session.next.deleted") return []
  // A committed revert removes the messages it hid (see `revertHides`).
  if (event.type === "session.next.revert.committed")
    return messages.filter((m) => !(m.seq > d.after && m.seq <= d.through))
  if (event.type === "session.next.prompted" || event.type === "session.next.synthetic.queued") {
    if (messages.some((m) => m.id === d.messageID)) return messages
    const queued =
      event.type === "session.next.prompted"
        ? userMessage(event.sessionID, 0, event.time, d as PromptData)
        : syntheticMessage(event.sessionID, 0, event.time, d as NoticeData)
    return [...messages, { ...queued, queued: true }]
  }
  const isQueued = (m: SessionMessage) => (m as { queued?: boolean }).queued === true
  let next = messages
  const created = createdMessage(event)
  if (created) {
    // A delivery replaces the queued copy; the transcript stays in seq order, the queue after it.
    const rest = next.filter((m) => m.id !== created.id)
    const index = rest.findIndex((m) => isQueued(m) || m.seq > created.seq)
    next = index === -1 ? [...rest, created] : [...rest.slice(0, index), created, ...rest.slice(index)]
  }
  if (event.type === "session.next.message.retracted") {
    // Queued input retracted before delivery enters the transcript retracted, taking this event's seq.
    const waiting = next.find((m) => m.id === d.messageID && isQueued(m))
    if (waiting) {
      const { queued: _queued, ...delivered } = waiting as SessionMessage & { queued?: true }
      const rest = next.filter((m) => m.id !== waiting.id)
      const index = rest.findIndex(isQueued)
      const placed = { ...delivered, seq: event.seq } as SessionMessage
      next = index === -1 ? [...rest, placed] : [...rest.slice(0, index), placed, ...rest.slice(index)]
    }
  }
  const changed = new Set(changedMessages(event))
  if (changed.size > 0) next = next.map((m) => (changed.has(m.id) ? updateMessage(m, event) : m))
  const restated = restatedText(event)
  if (restated)
    next = next.map((m) =>
      m.type === "compaction" && m.promptID === restated.promptID ? { ...m, recent: restated.text } : m,
    )
  return next
}

/**
 * Whether a staged revert hides a message: its seq is after the revert's boundary message and no later
 * than the last seq the revert covers (messages added after staging stay visible). Queued input (seq 0)
 * is never hidden.
 */
export const revertHides = (revert: { readonly seq?: number; readonly through?: number } | undefined, seq: number) =>
  revert?.seq !== undefined && revert.through !== undefined && seq > revert.seq && seq <= revert.through
