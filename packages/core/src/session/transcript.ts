import type { Message } from "./message.ts"
import type { ModelMessage } from "./model-request.ts"

/**
 * The stored transcript as the model sees it. Retracted messages are left out entirely (neither their
 * text nor any substitute reaches the model); corrected text is used as stored; removed parts are gone
 * from storage, so their tool call and result both disappear, keeping call/result pairs consistent.
 * Tool calls that never finished are left out for the same reason.
 */
export const toModelMessages = (transcript: ReadonlyArray<Message>): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (const message of transcript) {
    if (message.retracted) continue
    if (message.type !== "assistant") {
      const content = message.parts.flatMap((p) => (p.type === "text" && p.text ? [{ type: "text" as const, text: p.text }] : []))
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
