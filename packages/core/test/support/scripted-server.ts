/**
 * A scripted local model server for tests, with pluggable wire protocols (Anthropic Messages, OpenAI
 * Responses). Each request gets the next enqueued reply, else the handler's, else `{ text: "ok" }`; the
 * protocol turns a reply into its SSE frames. Requests are recorded as parsed JSON bodies with their
 * headers.
 */

/** One scripted reply, protocol-neutral. */
export interface Reply {
  readonly text?: string
  /** Reasoning streamed before the text (Anthropic `thinking`, Responses reasoning summary). */
  readonly reasoning?: string
  readonly toolCalls?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly arguments: unknown }>
  readonly usage?: { readonly input: number; readonly output: number; readonly reasoning?: number }
  /** Answer this HTTP status with the protocol's JSON error body instead of a stream. */
  readonly status?: number
  readonly error?: string
  /** Extra response headers (e.g. `retry-after` on a 429). */
  readonly headers?: Record<string, string>
  /** After the first frame that carries content, stay silent this many ms before the rest. */
  readonly silence?: number
}

export interface Protocol {
  /** The request path the protocol posts to, e.g. `/v1/messages`. */
  readonly path: string
  /** SSE frames (already framed, `event:`/`data:` lines and the blank line) for a reply. */
  frames(reply: Reply, body: any, index: number): Array<string>
  /** How many leading frames precede the first content frame (where `silence` applies). */
  readonly contentAt: number
  errorBody(status: number, message: string): unknown
}

export interface ScriptedServer {
  /** Base URL including `/v1`. */
  readonly url: string
  readonly port: number
  readonly requests: Array<{ readonly body: any; readonly headers: Record<string, string> }>
  enqueue(...replies: ReadonlyArray<Reply>): void
  reply(fn: (body: any, index: number) => Reply): void
  waitForRequests(count: number): Promise<void>
  close(): Promise<void>
}

export const splitText = (text: string, parts = 3): Array<string> => {
  const chars = Array.from(text)
  if (chars.length === 0) return []
  const size = Math.ceil(chars.length / Math.max(1, Math.min(parts, chars.length)))
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

export const sse = (event: string | undefined, data: unknown) =>
  `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`

export const startScriptedServer = async (protocol: Protocol): Promise<ScriptedServer> => {
  const requests: ScriptedServer["requests"] = []
  const queue: Array<Reply> = []
  let handler: ((body: any, index: number) => Reply) | undefined
  const waiters = new Set<{ count: number; resolve: () => void }>()
  const encoder = new TextEncoder()

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (request) => {
      const url = new URL(request.url)
      if (request.method !== "POST" || url.pathname !== protocol.path) {
        return Response.json(protocol.errorBody(404, `no route ${request.method} ${url.pathname}`), { status: 404 })
      }
      const body = await request.json()
      const index = requests.length
      requests.push({ body, headers: Object.fromEntries(request.headers.entries()) })
      for (const waiter of waiters) {
        if (requests.length >= waiter.count) {
          waiters.delete(waiter)
          waiter.resolve()
        }
      }
      const reply = queue.shift() ?? handler?.(body, index) ?? { text: "ok" }
      if (reply.status !== undefined) {
        return Response.json(protocol.errorBody(reply.status, reply.error ?? `scripted error ${reply.status}`), {
          status: reply.status,
          ...(reply.headers ? { headers: reply.headers } : {}),
        })
      }
      const frames = protocol.frames(reply, body, index)
      let next = 0
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (next === protocol.contentAt + 1 && reply.silence) await Bun.sleep(reply.silence)
          const frame = frames[next++]
          if (frame === undefined) return controller.close()
          controller.enqueue(encoder.encode(frame))
        },
      })
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers },
      })
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    port: server.port as number,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    reply: (fn) => {
      handler = fn
    },
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.add({ count, resolve })),
    close: () => server.stop(true),
  }
}
