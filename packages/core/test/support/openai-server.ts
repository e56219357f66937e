/**
 * A scripted, local OpenAI-compatible chat-completions server for tests.
 *
 * It speaks just enough of `POST /v1/chat/completions` with `stream: true` for a real client
 * (the AI SDK's openai-compatible provider) to talk to it: SSE `data: {...}` chunks, then
 * `data: [DONE]`. Every reply is scripted by the test:
 *
 * ```ts
 * const server = await startOpenAIServer()
 * server.enqueue({ text: "hello there" }, { toolCalls: [{ name: "read", arguments: { path: "a" } }] })
 * // ...point a client at server.url, run it...
 * expect(server.requests[0].messages).toEqual(...)
 * await server.close()
 * ```
 *
 * Reply selection for each request, in order: the next `enqueue`d reply, else the `reply(fn)`
 * handler, else the default `{ text: "ok" }`.
 *
 * How a reply is streamed:
 *   1. a role chunk (`delta: { role: "assistant" }`);
 *   2. `reasoning` as 2-4 `delta.reasoning_content` chunks;
 *   3. `text` as 2-4 `delta.content` chunks;
 *   4. each tool call as `delta.tool_calls` chunks: the first carries `index`, `id`, `type` and
 *      `function.name`, the arguments JSON is split across it and the following chunks;
 *   5. a chunk with an empty delta and `finish_reason` (`"tool_calls"` when there are tool calls,
 *      else `"stop"`, unless `finishReason` overrides it);
 *   6. a usage chunk (`choices: []`, `usage`), as OpenAI sends with `stream_options.include_usage`;
 *   7. `data: [DONE]`.
 *
 * `hold: true` sends the role chunk and the first content chunk, then waits for `release()` (or
 * for the client to go away). `held()` resolves once such a reply is waiting, and `aborted` /
 * `waitForAborted()` observe clients that closed the connection before the reply was complete.
 *
 * Run directly (`bun test/support/openai-server.ts [replies.json] [--port N]`) it starts a server
 * in its own process and prints its URL as the first line of stdout; see `main` at the bottom.
 */

/** One scripted reply. All fields are optional; an empty reply streams no content and finishes "stop". */
export interface ScriptedReply {
  /** Assistant text, streamed as several `delta.content` chunks. */
  readonly text?: string
  /**
   * Assistant text given as its chunks, one `delta.content` chunk each, instead of `text` (a big answer:
   * `Array(50).fill(oneMegabyte)` streams 50 MB while holding one). Chunks are serialised as they are sent.
   */
  readonly textChunks?: ReadonlyArray<string>
  /** Reasoning text, streamed before the text as several `delta.reasoning_content` chunks. */
  readonly reasoning?: string
  /**
   * Tool calls, streamed after the text. `arguments` is JSON-encoded unless it is already a string
   * (a string is sent verbatim, so a test can send malformed JSON). `id` defaults to `call_<n>`.
   */
  readonly toolCalls?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly arguments: unknown }>
  /** Token usage for the usage chunk. Default `{ prompt_tokens: 10, completion_tokens: 5 }`. */
  readonly usage?: ScriptedUsage
  /** Override the OpenAI `finish_reason` (e.g. `"length"`). */
  readonly finishReason?: string
  /** Send this HTTP status with an OpenAI-style JSON error body instead of a stream. */
  readonly status?: number
  /** Error message for `status`. Default `"scripted error <status>"`. */
  readonly error?: string
  /** Send the first chunk(s), then wait until `release()` before sending the rest. */
  readonly hold?: boolean
  /** Extra response headers (e.g. `retry-after` with a `status`). */
  readonly headers?: Record<string, string>
  /** After the role chunk and the first content chunk, stay silent this many ms before the rest. */
  readonly silence?: number
}

export interface ScriptedUsage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  /** Sent as `completion_tokens_details.reasoning_tokens` when set. */
  readonly reasoning_tokens?: number
}

export type ReplyHandler = (body: any, index: number) => ScriptedReply

export interface OpenAIServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:PORT/v1` — what an OpenAI client calls `baseURL`. */
  readonly url: string
  readonly port: number
  /** Parsed JSON bodies of the chat-completion requests received, in order. */
  readonly requests: Array<any>
  /** The headers of those requests (names lower-cased), in the same order. */
  readonly headers: Array<Record<string, string>>
  /** How many streaming replies the client abandoned (connection closed before `[DONE]`). */
  readonly aborted: number
  /** Replace the reply handler used when no enqueued reply is pending. */
  reply(fn: ReplyHandler): void
  /** Queue replies for the next requests, used before the handler. */
  enqueue(...replies: ReadonlyArray<ScriptedReply>): void
  /** Resolves when `count` (default 1) held replies have sent their first chunk(s) and are waiting. */
  held(count?: number): Promise<void>
  /** Let the oldest held reply (or the next one to hold, if none is waiting yet) continue. */
  release(): void
  /** Resolves once at least `count` (default 1) replies in total were abandoned by the client. */
  waitForAborted(count?: number): Promise<void>
  /** Resolves once `count` requests have been received. */
  waitForRequests(count: number): Promise<void>
  /** Stop the server, closing open connections and releasing held replies. */
  close(): Promise<void>
}

export interface OpenAIServerOptions {
  /** Port to listen on; default 0 (any free port). Always binds 127.0.0.1. */
  readonly port?: number
  /** Replies to enqueue up front. */
  readonly replies?: ReadonlyArray<ScriptedReply>
  /** Initial reply handler. */
  readonly reply?: ReplyHandler
}

const DEFAULT_REPLY: ScriptedReply = { text: "ok" }
const DEFAULT_USAGE: ScriptedUsage = { prompt_tokens: 10, completion_tokens: 5 }

/** Split a string into up to `parts` non-empty pieces of similar length (by code point). */
export const splitText = (text: string, parts = 3): Array<string> => {
  const chars = Array.from(text)
  if (chars.length === 0) return []
  const n = Math.max(1, Math.min(parts, chars.length))
  const size = Math.ceil(chars.length / n)
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

/** A condition that promises can wait on; `check()` re-evaluates the waiters. */
const makeWaiters = () => {
  const waiters = new Set<{ ready: () => boolean; resolve: () => void }>()
  return {
    wait(ready: () => boolean): Promise<void> {
      if (ready()) return Promise.resolve()
      return new Promise((resolve) => waiters.add({ ready, resolve }))
    },
    check() {
      for (const w of waiters) {
        if (w.ready()) {
          waiters.delete(w)
          w.resolve()
        }
      }
    },
  }
}

/** Build the SSE payloads (without the `data: ` framing) for one reply. */
const buildChunks = (reply: ScriptedReply, model: string, requestIndex: number): Array<unknown> => {
  const id = `chatcmpl-${requestIndex}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason }],
  })
  const chunks: Array<unknown> = [chunk({ role: "assistant" })]
  for (const piece of splitText(reply.reasoning ?? "")) chunks.push(chunk({ reasoning_content: piece }))
  for (const piece of reply.textChunks ?? splitText(reply.text ?? "")) chunks.push(chunk({ content: piece }))
  const toolCalls = reply.toolCalls ?? []
  toolCalls.forEach((call, index) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {})
    const pieces = splitText(args)
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? `call_${requestIndex}_${index}`,
            type: "function",
            function: { name: call.name, arguments: pieces[0] ?? "" },
          },
        ],
      }),
    )
    for (const piece of pieces.slice(1)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
  })
  chunks.push(chunk({}, reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop")))
  const usage = reply.usage ?? DEFAULT_USAGE
  chunks.push({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      ...(usage.reasoning_tokens !== undefined
        ? { completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens } }
        : {}),
    },
  })
  return chunks
}

export const startOpenAIServer = async (options: OpenAIServerOptions = {}): Promise<OpenAIServer> => {
  const requests: Array<any> = []
  const headers: Array<Record<string, string>> = []
  const queue: Array<ScriptedReply> = [...(options.replies ?? [])]
  let handler: ReplyHandler | undefined = options.reply
  let aborted = 0
  // Hold bookkeeping: replies paused at the hold point wait in arrival order; `release()` frees the
  // oldest one still waiting (a reply whose client went away leaves the line without using a release),
  // or, when none waits, is banked for the next reply to reach its hold point.
  const line: Array<{ released: boolean }> = []
  let credits = 0
  let waiting = 0
  let closing = false
  const waiters = makeWaiters()
  const encoder = new TextEncoder()

  const respond = (body: any, index: number, signal: AbortSignal): Response => {
    const reply = queue.shift() ?? handler?.(body, index) ?? DEFAULT_REPLY
    if (reply.status !== undefined) {
      return Response.json(
        {
          error: {
            message: reply.error ?? `scripted error ${reply.status}`,
            type: "scripted_error",
            code: reply.status,
          },
        },
        { status: reply.status, ...(reply.headers ? { headers: reply.headers } : {}) },
      )
    }
    // Serialised one at a time as the client pulls, so a big scripted answer is never held encoded whole.
    const events: Array<unknown> = buildChunks(
      reply,
      typeof body?.model === "string" ? body.model : "test-model",
      index,
    )
    events.push("[DONE]")
    const encode = (event: unknown) => `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`
    // Hold after the role chunk and the first content chunk.
    const holdAt = reply.hold ? Math.min(2, events.length) : -1
    let next = 0
    let done = false
    const markAborted = () => {
      if (done) return
      done = true
      aborted++
      waiters.check()
    }
    signal.addEventListener("abort", markAborted, { once: true })

    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next === 2 && reply.silence) await Bun.sleep(reply.silence)
        if (next === holdAt) {
          if (credits > 0) credits--
          else {
            const entry = { released: false }
            line.push(entry)
            waiting++
            waiters.check()
            await waiters.wait(() => entry.released || done || closing)
            waiting--
            const index = line.indexOf(entry)
            if (index !== -1) line.splice(index, 1)
          }
        }
        if (done && next < events.length) return // client went away while we were held
        const event = events[next++]
        if (event === undefined) {
          done = true
          controller.close()
          return
        }
        controller.enqueue(encoder.encode(encode(event)))
        if (next === events.length) {
          done = true
          controller.close()
        }
      },
      cancel() {
        markAborted()
      },
    })
    return new Response(stream, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
    })
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    fetch: async (req) => {
      const url = new URL(req.url)
      if (req.method === "POST" && url.pathname === "/v1/chat/completions") {
        let body: any
        try {
          body = await req.json()
        } catch {
          return Response.json(
            { error: { message: "invalid JSON body", type: "invalid_request_error" } },
            { status: 400 },
          )
        }
        const index = requests.length
        requests.push(body)
        headers.push(Object.fromEntries(req.headers))
        waiters.check()
        if (body?.stream !== true) {
          return Response.json(
            { error: { message: "only stream: true is supported by the test server", type: "invalid_request_error" } },
            { status: 400 },
          )
        }
        return respond(body, index, req.signal)
      }
      // Control endpoints, for a test driving a server that runs in another process.
      if (req.method === "POST" && url.pathname === "/__control/release") {
        api.release()
        return Response.json({ ok: true })
      }
      if (req.method === "GET" && url.pathname === "/__control/state") {
        return Response.json({ requests, aborted, waiting })
      }
      return Response.json({ error: { message: `no route ${req.method} ${url.pathname}` } }, { status: 404 })
    },
  })

  const api: OpenAIServer = {
    url: `http://127.0.0.1:${server.port}/v1`,
    port: server.port as number,
    requests,
    headers,
    get aborted() {
      return aborted
    },
    reply(fn) {
      handler = fn
    },
    enqueue(...replies) {
      queue.push(...replies)
    },
    held: (count = 1) => waiters.wait(() => waiting >= count),
    release() {
      const entry = line.find((e) => !e.released)
      if (entry) entry.released = true
      else credits++
      waiters.check()
    },
    waitForAborted: (count = 1) => waiters.wait(() => aborted >= count),
    waitForRequests: (count) => waiters.wait(() => requests.length >= count),
    async close() {
      closing = true
      waiters.check()
      await server.stop(true)
    },
  }
  return api
}

/**
 * CLI: `bun test/support/openai-server.ts [replies.json] [--port N]`
 *
 * `replies.json` holds either an array of `ScriptedReply` (served in order, then the default
 * `{ text: "ok" }`) or `{ "replies": [...], "fallback": ScriptedReply }`. The first stdout line
 * is the base URL (`http://127.0.0.1:PORT/v1`). The process runs until SIGINT/SIGTERM.
 * `POST /__control/release` releases a held reply; `GET /__control/state` returns
 * `{ requests, aborted, waiting }`.
 */
const main = async (argv: ReadonlyArray<string>) => {
  let file: string | undefined
  let port = 0
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--port") port = Number(argv[++i])
    else file = arg
  }
  let replies: ReadonlyArray<ScriptedReply> = []
  let fallback: ScriptedReply | undefined
  if (file !== undefined) {
    const parsed = JSON.parse(await Bun.file(file).text())
    if (Array.isArray(parsed)) replies = parsed
    else {
      replies = parsed.replies ?? []
      fallback = parsed.fallback
    }
  }
  const server = await startOpenAIServer({ port, replies, ...(fallback ? { reply: () => fallback } : {}) })
  process.stdout.write(`${server.url}\n`)
  const stop = () => {
    void server.close().then(() => process.exit(0))
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
}

if (import.meta.main) {
  await main(process.argv.slice(2))
}
