import type { CompactionMessage, Message } from "./message.ts"
import type { ModelMessage } from "./model-request.ts"

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
  const restated = compaction.prompt
    ? transcript.find((m) => m.id === compaction.prompt && m.seq <= compaction.through)
    : undefined
  const after = transcript.filter(
    (m) => m.seq > compaction.through && m.id !== compaction.id && m.type !== "compaction",
  )
  return [compaction, ...(restated ? [restated] : []), ...after]
}

/**
 * The stored transcript as the model sees it (through `modelView`). Retracted messages are left out
 * entirely (neither their text nor any substitute reaches the model); corrected text is used as stored;
 * removed parts are gone from storage, so their tool call and result both disappear, keeping call/result
 * pairs consistent. Tool calls that never finished are left out for the same reason. A compaction is sent
 * as a user message holding its summary.
 */
export const toModelMessages = (transcript: ReadonlyArray<Message>): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (const message of modelView(transcript)) {
    if (message.retracted) continue
    if (message.type === "compaction") {
      const summary = message.parts.flatMap((p) => (p.type === "text" && p.text ? [p.text] : [])).join("\n\n")
      if (summary) out.push({ role: "user", content: [{ type: "text", text: `${SUMMARY_HEADING}\n\n${summary}` }] })
      continue
    }
    if (message.type !== "assistant") {
      const content = message.parts.flatMap((p) =>
        p.type === "text" && p.text ? [{ type: "text" as const, text: p.text }] : [],
      )
      if (content.length > 0) out.push({ role: "user", content })
      continue
    }
    const content: Array<Extract<ModelMessage, { role: "assistant" }>["content"][number]> = []
    const results: Array<Extract<ModelMessage, { role: "tool" }>["content"][number]> = []
    for (const part of message.parts) {
      if (part.type === "text" && part.text) content.push({ type: "text", text: part.text })
      else if (part.type === "reasoning" && part.text) content.push({ type: "reasoning", text: part.text })
      else if (part.type === "tool" && part.state !== "running") {
        content.push({ type: "tool-call", callID: part.callID, tool: part.tool, input: part.input })
        results.push({
          type: "tool-result",
          callID: part.callID,
          tool: part.tool,
          output: part.state === "error" ? (part.error ?? "error") : (part.output ?? ""),
          isError: part.state === "error",
        })
      }
    }
    if (content.length > 0) out.push({ role: "assistant", content })
    if (results.length > 0) out.push({ role: "tool", content: results })
  }
  return out
}
