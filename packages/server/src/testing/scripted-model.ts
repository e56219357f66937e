import type { ContextEvent, ModelMessage, ModelTool, SystemPart } from "@opencode-ai/plugin"

/**
 * The scripted model of the plugin test kit: a real OpenAI-compatible chat-completions server on loopback
 * whose answers a test queues. The host talks to it through its ordinary `openai-compatible` provider, so
 * the real client, streaming, retries and error recording all run; only the answers are scripted.
 *
 * The wire joins system parts into one system message, which would lose their origins. The kit therefore
 * snapshots the finished request in a `session.context` hook that runs after every plugin's, and tags the
 * outgoing system text with the snapshot's number; the server strips the tag and pairs the two, so each
 * recorded request carries the system parts exactly as the host sent them, origins included.
 */

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  readonly name: string
  readonly input?: unknown
  /** The call id; default `call_<request>_<index>`. */
  readonly id?: string
}

/** One scripted answer. Every field is optional; `{}` answers with nothing and finishes. */
export interface ScriptedReply {
  /** Reasoning, streamed first as `reasoning_content` deltas. */
  readonly reasoning?: string
  /** Answer text, streamed as several deltas. */
  readonly text?: string
  /** Tool calls after the text; the host runs them and sends another request (queue its answer too). */
  readonly tools?: ReadonlyArray<ScriptedToolCall>
  /** Fail the request: answered with `status` and this message instead of a stream (recorded on the turn). */
  readonly error?: string
  /** HTTP status for `error`. Default 400, which no provider retries. */
  readonly status?: number
}

/** A reply as queued: plain text, a full reply, or a function of the request it answers. */
export type Reply = string | ScriptedReply | ((request: ModelCall) => string | ScriptedReply)

/** One primary model request, as the host sent it. */
export interface ModelCall {
  /** 0-based, in arrival order. */
  readonly index: number
  readonly sessionID: string
  readonly agentID: string
  readonly model: ContextEvent["model"]
  /** The system parts with their host-assigned origins, in order, after every `session.context` callback. */
  readonly system: ReadonlyArray<SystemPart>
  /** The transcript as sent (provider-neutral shape). */
  readonly messages: ReadonlyArray<ModelMessage>
  readonly tools: ReadonlyArray<ModelTool>
  /** The chat-completions body as it arrived on the wire (the kit's tag removed). */
  readonly body: unknown
}

export interface ScriptedModel {
  /** Queues answers for the next requests, in order. When the queue is empty the fallback answers. */
  reply(...replies: ReadonlyArray<Reply>): void
  /** Replaces the answer used when nothing is queued. Default: the text `ok`. */
  fallback(reply: Reply): void
  /**
   * Holds the next answer mid-way: it streams its first delta, then waits until `release()` (or until the
   * host goes away). Resolves with the request once its answer is waiting there; call it before the
   * request is made, await it after.
   */
  hold(): Promise<ModelCall>
  /** Lets every held answer continue, and cancels a `hold()` no request has used yet. */
  release(): void
  /** Every request received so far, in order. */
  readonly requests: ReadonlyArray<ModelCall>
  /** Resolves once `count` requests have been received in total. */
  waitForRequests(count: number): Promise<ReadonlyArray<ModelCall>>
}

/** What the test host needs besides the public face. */
export interface ScriptedModelServer {
  readonly model: ScriptedModel
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string
  /** The `session.context` callback that snapshots a request and tags it. Must run after every other one. */
  readonly record: (event: ContextEvent) => void
  close(): Promise<void>
}

const TAG = /\n*<<opencode2-testkit request (\d+)>>$/

const pieces = (text: string, count = 3): Array<string> => {
  const chars = Array.from(text)
  if (chars.length === 0) return []
  const size = Math.ceil(chars.length / Math.min(count, chars.length))
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

/** The SSE data payloads of one streamed answer. */
const chunksOf = (reply: ScriptedReply, index: number, model: string) => {
  const id = `chatcmpl-testkit-${index}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
  const chunks: Array<unknown> = [chunk({ role: "assistant" })]
  for (const text of pieces(reply.reasoning ?? "")) chunks.push(chunk({ reasoning_content: text }))
  for (const text of pieces(reply.text ?? "")) chunks.push(chunk({ content: text }))
  const tools = reply.tools ?? []
  tools.forEach((call, position) => {
    const [first = "", ...rest] = pieces(JSON.stringify(call.input ?? {}), 2)
    chunks.push(
      chunk({
        tool_calls: [
          {
            index: position,
            id: call.id ?? `call_${index}_${position}`,
            type: "function",
            function: { name: call.name, arguments: first },
          },
        ],
      }),
    )
    for (const args of rest) chunks.push(chunk({ tool_calls: [{ index: position, function: { arguments: args } }] }))
  })
  chunks.push(chunk({}, tools.length > 0 ? "tool_calls" : "stop"))
  const output = Math.ceil(((reply.reasoning ?? "").length + (reply.text ?? "").length) / 4)
  chunks.push({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: output, total_tokens: 10 + output },
  })
  return chunks.map((payload) => `data: ${JSON.stringify(payload)}\n\n`).concat("data: [DONE]\n\n")
}

/** Conditions promises can wait on without polling: `check()` re-evaluates them after each change. */
const conditions = () => {
  const waiting = new Set<{ ready: () => boolean; resolve: () => void }>()
  return {
    until(ready: () => boolean): Promise<void> {
      if (ready()) return Promise.resolve()
      return new Promise((resolve) => waiting.add({ ready, resolve }))
    },
    check() {
      for (const entry of [...waiting]) {
        if (entry.ready()) {
          waiting.delete(entry)
          entry.resolve()
        }
      }
    },
  }
}

export const startScriptedModel = (): ScriptedModelServer => {
  const queue: Array<Reply> = []
  let fallback: Reply = "ok"
  const requests: Array<ModelCall> = []
  const snapshots = new Map<number, Omit<ModelCall, "index" | "body">>()
  let tagged = 0
  // Armed holds wait for the next answers to start; each resolves its `hold()` promise once paused.
  const armed: Array<(call: ModelCall) => void> = []
  const paused = new Set<() => void>()
  let closing = false
  const changed = conditions()
  const encoder = new TextEncoder()

  const record = (event: ContextEvent) => {
    const number = ++tagged
    snapshots.set(number, {
      sessionID: event.sessionID,
      agentID: event.agentID,
      model: { ...event.model },
      system: structuredClone(event.system),
      messages: structuredClone(event.messages),
      tools: structuredClone(event.tools),
    })
    event.system.push({
      type: "text",
      id: `testkit:request:${number}`,
      text: `<<opencode2-testkit request ${number}>>`,
      // The host assigns the recorder's own origin anyway; the part never reaches a recorded request.
      origin: { type: "plugin", pluginID: "opencode2-testkit" },
    })
  }

  /** Pairs a wire body with its snapshot and strips the kit's tag from the body. */
  const admit = (body: any): ModelCall => {
    const messages: Array<{ role: string; content: unknown }> = Array.isArray(body?.messages) ? body.messages : []
    let snapshot: Omit<ModelCall, "index" | "body"> | undefined
    for (const message of messages) {
      if (message.role !== "system" || typeof message.content !== "string") continue
      const match = TAG.exec(message.content)
      if (!match) continue
      snapshot = snapshots.get(Number(match[1]))
      snapshots.delete(Number(match[1]))
      message.content = message.content.replace(TAG, "")
    }
    if (body && Array.isArray(body.messages)) {
      body.messages = messages.filter((message) => !(message.role === "system" && message.content === ""))
    }
    const call: ModelCall = {
      index: requests.length,
      sessionID: snapshot?.sessionID ?? "",
      agentID: snapshot?.agentID ?? "",
      model: snapshot?.model ?? { providerID: "testkit", id: String(body?.model ?? "") },
      system: snapshot?.system ?? [],
      messages: snapshot?.messages ?? [],
      tools: snapshot?.tools ?? [],
      body,
    }
    requests.push(call)
    changed.check()
    return call
  }

  const answer = (call: ModelCall, signal: AbortSignal): Response => {
    const next = queue.shift() ?? fallback
    const resolved = typeof next === "function" ? next(call) : next
    const reply: ScriptedReply = typeof resolved === "string" ? { text: resolved } : resolved
    if (reply.error !== undefined || reply.status !== undefined) {
      const message = reply.error ?? `scripted error ${reply.status}`
      return Response.json(
        { error: { message, type: "scripted_error", code: reply.status ?? 400 } },
        { status: reply.status ?? 400 },
      )
    }
    const chunks = chunksOf(
      reply,
      call.index,
      typeof (call.body as any)?.model === "string" ? (call.body as any).model : "scripted",
    )
    const onHold = armed.shift()
    // Mid-way: after the role chunk and the first delta (just the role chunk for an empty answer).
    const holdAt = onHold ? Math.min(2, chunks.length - 2) : -1
    let sent = 0
    let gone = false
    let wake: (() => void) | undefined
    const leave = () => {
      gone = true
      wake?.()
    }
    signal.addEventListener("abort", leave, { once: true })
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === holdAt && !closing) {
          await new Promise<void>((resolve) => {
            wake = resolve
            paused.add(resolve)
            onHold?.(call)
          })
          paused.delete(wake!)
          wake = undefined
        }
        if (gone) return
        const chunk = chunks[sent++]
        if (chunk === undefined) return controller.close()
        controller.enqueue(encoder.encode(chunk))
        if (sent === chunks.length) controller.close()
      },
      cancel: leave,
    })
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } })
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (request) => {
      const url = new URL(request.url)
      if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") {
        return Response.json({ error: { message: `no route ${request.method} ${url.pathname}` } }, { status: 404 })
      }
      const body = await request.json().catch(() => undefined)
      if (!body || body.stream !== true) {
        return Response.json(
          { error: { message: "the scripted model only streams", type: "invalid_request_error" } },
          { status: 400 },
        )
      }
      return answer(admit(body), request.signal)
    },
  })

  const model: ScriptedModel = {
    reply: (...replies) => void queue.push(...replies),
    fallback: (reply) => {
      fallback = reply
    },
    hold: () => new Promise<ModelCall>((resolve) => armed.push(resolve)),
    release: () => {
      armed.length = 0
      for (const resume of [...paused]) resume()
    },
    requests,
    waitForRequests: (count) => changed.until(() => requests.length >= count).then(() => requests),
  }

  return {
    model,
    baseURL: `http://127.0.0.1:${server.port}/v1`,
    record,
    close: async () => {
      closing = true
      model.release()
      await server.stop(true)
    },
  }
}
