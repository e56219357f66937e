/**
 * A local server speaking OpenAI's Responses streaming protocol (`POST /v1/responses`, `stream: true`),
 * written from the public protocol description: `response.created`, `response.in_progress`, then per
 * output item `response.output_item.added` ... `response.output_item.done` (a reasoning item with its
 * summary streamed as `response.reasoning_summary_text.delta`, a message item with
 * `response.output_text.delta`, function calls with `response.function_call_arguments.delta`), and
 * `response.completed` carrying the usage. Every event has a `sequence_number`; there is no `[DONE]`.
 */
import {
  type Protocol,
  type Reply,
  type ScriptedServer,
  splitText,
  sse,
  startScriptedServer,
} from "./scripted-server.ts"

export const responsesProtocol: Protocol = {
  path: "/v1/responses",
  contentAt: 4,
  errorBody: (status, message) => ({
    error: { message, type: status === 429 ? "rate_limit_exceeded" : "invalid_request_error", code: null, param: null },
  }),
  frames(reply: Reply, body: any, index: number) {
    let sequence = 0
    const frames: Array<string> = []
    const emit = (type: string, data: Record<string, unknown>) =>
      frames.push(sse(type, { type, sequence_number: sequence++, ...data }))
    const created = Math.floor(Date.now() / 1000)
    const response = (status: string, output: Array<unknown>, extra: Record<string, unknown> = {}) => ({
      id: `resp_mock_${index}`,
      object: "response",
      created_at: created,
      model: body?.model ?? "gpt-test",
      status,
      output,
      ...extra,
    })
    emit("response.created", { response: response("in_progress", []) })
    emit("response.in_progress", { response: response("in_progress", []) })
    const output: Array<unknown> = []
    if (reply.reasoning) {
      const item = { type: "reasoning", id: `rs_${index}`, summary: [] as Array<unknown> }
      const at = output.length
      emit("response.output_item.added", { output_index: at, item })
      emit("response.reasoning_summary_part.added", {
        item_id: item.id,
        output_index: at,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      })
      for (const delta of splitText(reply.reasoning)) {
        emit("response.reasoning_summary_text.delta", { item_id: item.id, output_index: at, summary_index: 0, delta })
      }
      emit("response.reasoning_summary_text.done", {
        item_id: item.id,
        output_index: at,
        summary_index: 0,
        text: reply.reasoning,
      })
      const part = { type: "summary_text", text: reply.reasoning }
      emit("response.reasoning_summary_part.done", { item_id: item.id, output_index: at, summary_index: 0, part })
      const done = { ...item, summary: [part] }
      emit("response.output_item.done", { output_index: at, item: done })
      output.push(done)
    }
    if (reply.text) {
      const id = `msg_${index}`
      const at = output.length
      emit("response.output_item.added", {
        output_index: at,
        item: { type: "message", id, role: "assistant", status: "in_progress", content: [] },
      })
      emit("response.content_part.added", {
        item_id: id,
        output_index: at,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      })
      for (const delta of splitText(reply.text)) {
        emit("response.output_text.delta", { item_id: id, output_index: at, content_index: 0, delta, logprobs: [] })
      }
      emit("response.output_text.done", {
        item_id: id,
        output_index: at,
        content_index: 0,
        text: reply.text,
        logprobs: [],
      })
      const part = { type: "output_text", text: reply.text, annotations: [] }
      emit("response.content_part.done", { item_id: id, output_index: at, content_index: 0, part })
      const item = { type: "message", id, role: "assistant", status: "completed", content: [part] }
      emit("response.output_item.done", { output_index: at, item })
      output.push(item)
    }
    for (const [n, call] of (reply.toolCalls ?? []).entries()) {
      const id = `fc_${index}_${n}`
      const at = output.length
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {})
      const item = {
        type: "function_call",
        id,
        call_id: call.id ?? `call_${index}_${n}`,
        name: call.name,
        arguments: "",
      }
      emit("response.output_item.added", { output_index: at, item: { ...item, status: "in_progress" } })
      for (const delta of splitText(args))
        emit("response.function_call_arguments.delta", { item_id: id, output_index: at, delta })
      emit("response.function_call_arguments.done", { item_id: id, output_index: at, arguments: args })
      const done = { ...item, arguments: args, status: "completed" }
      emit("response.output_item.done", { output_index: at, item: done })
      output.push(done)
    }
    const usage = reply.usage ?? { input: 20, output: 9 }
    emit("response.completed", {
      response: response("completed", output, {
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
          total_tokens: usage.input + usage.output,
        },
      }),
    })
    return frames
  },
}

export const startResponsesServer = (): Promise<ScriptedServer> => startScriptedServer(responsesProtocol)
