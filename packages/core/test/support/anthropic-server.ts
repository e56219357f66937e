/**
 * A local server speaking the Anthropic Messages streaming protocol (`POST /v1/messages`, `stream: true`),
 * written from the public protocol description: `message_start`, then per content block
 * `content_block_start` / `content_block_delta`s / `content_block_stop` (thinking blocks with
 * `thinking_delta` and `signature_delta`, text blocks with `text_delta`, tool_use blocks with
 * `input_json_delta`), a `ping`, `message_delta` with the stop reason and output usage, `message_stop`.
 * Errors are `{ type: "error", error: { type, message } }` bodies.
 */
import {
  type Protocol,
  type Reply,
  type ScriptedServer,
  splitText,
  sse,
  startScriptedServer,
} from "./scripted-server.ts"

const errorType = (status: number) =>
  status === 429
    ? "rate_limit_error"
    : status === 529
      ? "overloaded_error"
      : status >= 500
        ? "api_error"
        : status === 401
          ? "authentication_error"
          : "invalid_request_error"

export const anthropicProtocol: Protocol = {
  path: "/v1/messages",
  contentAt: 2,
  errorBody: (status, message) => ({ type: "error", error: { type: errorType(status), message } }),
  frames(reply: Reply, body: any, index: number) {
    const usage = reply.usage ?? { input: 12, output: 7 }
    const frames = [
      sse("message_start", {
        type: "message_start",
        message: {
          id: `msg_mock_${index}`,
          type: "message",
          role: "assistant",
          model: body?.model ?? "claude-test",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input, output_tokens: 1 },
        },
      }),
    ]
    let block = 0
    const open = (content_block: unknown) =>
      frames.push(sse("content_block_start", { type: "content_block_start", index: block, content_block }))
    const delta = (delta: unknown) =>
      frames.push(sse("content_block_delta", { type: "content_block_delta", index: block, delta }))
    const close = () => frames.push(sse("content_block_stop", { type: "content_block_stop", index: block++ }))
    if (reply.reasoning) {
      open({ type: "thinking", thinking: "" })
      for (const piece of splitText(reply.reasoning)) delta({ type: "thinking_delta", thinking: piece })
      delta({ type: "signature_delta", signature: `sig_${index}` })
      close()
    }
    if (reply.text) {
      open({ type: "text", text: "" })
      for (const piece of splitText(reply.text)) delta({ type: "text_delta", text: piece })
      close()
    }
    frames.push(sse("ping", { type: "ping" }))
    for (const [n, call] of (reply.toolCalls ?? []).entries()) {
      open({ type: "tool_use", id: call.id ?? `toolu_${index}_${n}`, name: call.name, input: {} })
      const json = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {})
      for (const piece of splitText(json)) delta({ type: "input_json_delta", partial_json: piece })
      close()
    }
    frames.push(
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: usage.output },
      }),
      sse("message_stop", { type: "message_stop" }),
    )
    return frames
  },
}

export const startAnthropicServer = (): Promise<ScriptedServer> => startScriptedServer(anthropicProtocol)
