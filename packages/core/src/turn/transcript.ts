import type { CompactionMessage, Message, ToolItem, UserMessage } from "../domain/message.ts"
import type { ModelMessage } from "../domain/model-request.ts"

/** How a compaction's summary is introduced to the model. */
export const SUMMARY_HEADING = "Summary of the conversation so far (older messages were compacted):"

/**
 * The part of the stored transcript that model requests still send: everything when there is no
 * compaction; otherwise the latest (not retracted) compaction, then the prompt it restates if any, then
 * the messages after what it summarised. Earlier messages stay stored and readable, only unsent.
 */
export const modelView = (transcript: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  let latest: CompactionMessage | undefined
  for (let i = transcript.length - 1; i >= 0; i--) {
    const message = transcript[i]!
    if (message.type === "compaction" && !message.retracted) {
      latest = message
      break
    }
  }
  if (!latest) return transcript
  const compaction = latest
  const restated = compaction.promptID
    ? transcript.find((m) => m.id === compaction.promptID && m.seq <= compaction.through)
    : undefined
  const after = transcript.filter(
    (m) => m.seq > compaction.through && m.id !== compaction.id && m.type !== "compaction",
  )
  return [compaction, ...(restated ? [restated] : []), ...after]
}

/** The text a tool call's result gives back to the model. */
export const toolOutput = (item: ToolItem): string => {
  if (item.state.status === "error") return item.state.error.message
  if (item.state.status !== "completed") return ""
  return item.state.content
    .map((c) => (c.type === "text" ? c.text : `[file ${c.name ?? c.uri} (${c.mime})]`))
    .join("\n")
}

/** A user prompt's text, followed by a line per attached file (the model reads them with its tools). */
const promptText = (message: UserMessage) =>
  message.files && message.files.length > 0
    ? [message.text, ...message.files.map((f) => `[attached file: ${f.name ?? f.uri} (${f.uri}, ${f.mime})]`)].join(
        "\n",
      )
    : message.text

/**
 * The stored transcript as the model sees it (through `modelView`), converted once per message object. The
 * returned messages are shared between requests and must not be changed. (docs/architecture.md, "The
 * model's view of a transcript, converted once per message")
 */
export const toModelMessages = (transcript: ReadonlyArray<Message>): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (const message of modelView(transcript)) {
    let share = converted.get(message)
    if (share === undefined) converted.set(message, (share = messageToModel(message)))
    for (const item of share) out.push(item)
  }
  return out
}

const converted = new WeakMap<Message, ReadonlyArray<ModelMessage>>()

const NONE: ReadonlyArray<ModelMessage> = []

const userText = (text: string): ReadonlyArray<ModelMessage> =>
  text ? [{ role: "user", content: [{ type: "text", text }] }] : NONE

/** One stored message as the model messages it becomes (none, one, or an assistant turn and its results). */
const messageToModel = (message: Message): ReadonlyArray<ModelMessage> => {
  if (message.retracted) return NONE
  switch (message.type) {
    case "compaction":
      return message.summary ? userText(`${SUMMARY_HEADING}\n\n${message.summary}`) : NONE
    case "user":
      return userText(promptText(message))
    case "synthetic":
    case "system":
      return userText(message.text)
    case "assistant":
      break
    default:
      return NONE
  }
  const content: Array<Extract<ModelMessage, { role: "assistant" }>["content"][number]> = []
  const results: Array<Extract<ModelMessage, { role: "tool" }>["content"][number]> = []
  for (const item of message.content) {
    if (item.type === "text" && item.text) content.push({ type: "text", text: item.text })
    else if (item.type === "reasoning" && item.text) content.push({ type: "reasoning", text: item.text })
    else if (
      item.type === "tool" &&
      item.time.pruned === undefined &&
      (item.state.status === "completed" || item.state.status === "error")
    ) {
      content.push({ type: "tool-call", callID: item.callID, tool: item.name, input: item.state.input })
      results.push({
        type: "tool-result",
        callID: item.callID,
        tool: item.name,
        output: toolOutput(item),
        isError: item.state.status === "error",
      })
    }
  }
  const out: Array<ModelMessage> = []
  if (content.length > 0) out.push({ role: "assistant", content })
  if (results.length > 0) out.push({ role: "tool", content: results })
  return out
}
