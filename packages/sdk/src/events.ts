import { checkPathParameters, fetchOf } from "./client.ts"
import type { OpencodeClient } from "./gen/sdk.gen.ts"
import type { SessionDurableEvent, V2Event } from "./gen/types.gen.ts"

/** An event stream could not be opened: the server's typed error body, with its HTTP status. */
export class EventStreamError extends Error {
  override readonly name = "EventStreamError"
  constructor(
    readonly status: number,
    readonly error: unknown,
  ) {
    super(
      typeof error === "object" && error !== null && "message" in error
        ? String((error as { message: unknown }).message)
        : `event stream failed with status ${status}`,
    )
  }
}

/**
 * An open event stream. Iterate it with `for await`; breaking out of the loop (or `close()`) closes the
 * connection, so nothing keeps the process alive afterwards. Iterate it once.
 */
export interface EventStream<E> extends AsyncIterable<E> {
  /** Closes the connection; the iteration ends. */
  close(): void
}

export interface EventsOptions {
  /** Only this session's events (an addition to upstream's `event.subscribe`). */
  readonly sessionID?: string
  /** Aborting closes the stream (the iteration ends without an error). */
  readonly signal?: AbortSignal
}

export interface SessionEventsOptions {
  readonly sessionID: string
  /** Replay durable events with a greater seq (exclusive). Default 0: the whole history. */
  readonly after?: number
  readonly signal?: AbortSignal
}

/** The parts of an SSE operation's options the streams set. */
interface StreamCall {
  fetch: typeof globalThis.fetch
  signal: AbortSignal
  sseMaxRetryAttempts: number
  onSseError: (cause: unknown) => void
}

/**
 * The response with a body that ends (instead of failing) when `signal` aborts. The generated SSE reader
 * cancels its body reader on abort and drops the promise `cancel()` returns; on a body the abort has
 * already failed that promise rejects, unhandled, which a process treating unhandled rejections as fatal
 * (Node's default) dies of. Closed rather than failed, the body's cancel resolves.
 */
const endOnAbort = (response: Response, signal: AbortSignal): Response => {
  if (response.body === null) return response
  const source = response.body.getReader()
  let finished = false
  let stop: () => void = () => undefined
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = () => {
        if (finished) return
        finished = true
        try {
          controller.close()
        } catch {
          // already closed
        }
        source.cancel().catch(() => undefined)
      }
      if (signal.aborted) stop()
      else signal.addEventListener("abort", stop, { once: true })
    },
    async pull(controller) {
      try {
        const { done, value } = await source.read()
        if (finished) return
        if (done) {
          finished = true
          signal.removeEventListener("abort", stop)
          controller.close()
        } else controller.enqueue(value)
      } catch (cause) {
        if (finished || signal.aborted) return stop()
        finished = true
        signal.removeEventListener("abort", stop)
        controller.error(cause)
      }
    },
    cancel(reason) {
      finished = true
      signal.removeEventListener("abort", stop)
      return source.cancel(reason).catch(() => undefined)
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * Opens a stream and resolves once the server has answered, so the subscription exists (every event
 * committed from then on is delivered) before the promise resolves. One attempt, no reconnection: a
 * refused stream rejects with `EventStreamError` and the server's typed body.
 */
const open = async <E>(
  client: OpencodeClient,
  start: (call: StreamCall) => Promise<{ stream: AsyncGenerator<unknown, unknown, unknown> }>,
  outer: AbortSignal | undefined,
): Promise<EventStream<E>> => {
  const controller = new AbortController()
  const close = () => controller.abort()
  if (outer?.aborted) close()
  else outer?.addEventListener("abort", close, { once: true })
  const base = fetchOf(client)
  let answered!: (response: Response | Error) => void
  const response = new Promise<Response | Error>((resolve) => (answered = resolve))
  let failure: unknown
  const { stream } = await start({
    // The generated reader cancels its body reader when its signal aborts and leaves the promise that
    // `cancel()` returns unhandled (an unhandled AbortError on every close). It gets a signal that never
    // aborts; `close()` aborts the fetch itself, which ends the reader's pending read instead.
    signal: new AbortController().signal,
    sseMaxRetryAttempts: 1,
    onSseError: (cause) => {
      // Closing (or the caller's signal) ends the fetch with an AbortError: that is no failure.
      if (!controller.signal.aborted) failure ??= cause
      answered(cause instanceof Error ? cause : new Error(String(cause)))
    },
    fetch: (async (input: Request | string | URL, init?: RequestInit) => {
      const got = await base(new Request(input, { ...init, signal: controller.signal })).catch((cause: unknown) => {
        answered(cause instanceof Error ? cause : new Error(String(cause)))
        throw cause
      })
      if (!got.ok) {
        const body = await got
          .clone()
          .json()
          .catch(() => undefined)
        failure ??= new EventStreamError(got.status, body)
      }
      answered(got)
      return got.ok ? endOnAbort(got, controller.signal) : got
    }) as typeof globalThis.fetch,
  })
  // The generated reader connects when first pulled: pull now, and hand the first result on later.
  const first = stream.next()
  first.catch(() => undefined)
  await Promise.race([response, first])
  if (failure !== undefined) {
    close()
    throw failure
  }
  const events = async function* () {
    try {
      const head = await first
      if (head.done) return
      yield head.value as E
      for await (const event of stream) yield event as E
    } catch (cause) {
      if (!controller.signal.aborted) throw cause
    } finally {
      close()
      outer?.removeEventListener("abort", close)
      await stream.return(undefined).catch(() => undefined)
    }
  }
  const iterator = events()
  return {
    close,
    [Symbol.asyncIterator]: () => iterator,
  }
}

/**
 * `v2.event.subscribe` (`GET /api/event`), connected: `server.connected`, then every durable and live
 * event (of one session with `sessionID`), typed as upstream's `V2Event` union plus this host's events.
 *
 * ```ts
 * const events = await subscribe(client, { sessionID })
 * for await (const event of events) if (event.type === "session.next.turn.ended") break
 * ```
 */
export const subscribe = (client: OpencodeClient, options: EventsOptions = {}): Promise<EventStream<V2Event>> =>
  open<V2Event>(
    client,
    (call) =>
      client.v2.event.subscribe({
        ...call,
        ...(options.sessionID !== undefined ? { query: { sessionID: options.sessionID } } : {}),
      }) as never,
    options.signal,
  )

/**
 * `v2.session.events` (`GET /api/session/:id/event`), connected: the session's durable events after the
 * seq `after`, replayed from the journal (whose only gaps are what it compacted: an ended part's streaming checkpoints, a retention base), then the ones committed from now on. A session id
 * the URL parser would resolve away (`..`, `.`, empty) is refused before connecting, as the server would
 * refuse it: `EventStreamError` with status 400 and the `InvalidRequestError` body.
 */
export const sessionEvents = async (
  client: OpencodeClient,
  options: SessionEventsOptions,
): Promise<EventStream<SessionDurableEvent>> => {
  const refusal = checkPathParameters({ sessionID: options.sessionID })
  if (refusal) throw new EventStreamError(400, refusal)
  return open<SessionDurableEvent>(
    client,
    (call) =>
      client.v2.session.events(
        { sessionID: options.sessionID, ...(options.after !== undefined ? { after: String(options.after) } : {}) },
        call,
      ) as never,
    options.signal,
  )
}
