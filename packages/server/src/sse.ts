import { ascending } from "@opencode-ai/core"
import { type Cause, Context, Effect, type Fiber, Queue, Scheduler, type Scope, Stream } from "effect"

/**
 * The server-sent-events mechanism both event streams use: per subscriber, a scoped bounded `Queue` of
 * frames, drained by a `Stream` whose chunks are written straight into the response's sink.
 *
 * - Live sources (bus listeners, which run inside commit publication and must never block) offer without
 *   suspending. A subscriber whose queue holds `queueLimit` frames is dropped: the queue is discarded, a
 *   final `server.error` event is sent and the stream ends. Publishing never waits.
 * - Sources that can wait (the durable log, read page by page) offer with back-pressure instead.
 * - A heartbeat fiber in the same scope queues a comment every `heartbeatMs`, so proxies and clients see
 *   the connection is alive.
 * - Everything the queue holds when the writer wakes goes out in one write and one flush; a write the
 *   client is not ready for (its socket buffer full) is awaited, so meanwhile frames accumulate in the queue,
 *   which is what drops a slow consumer.
 * - When the stream ends for any reason (client gone, dropped, finished, server stopping) its scope closes:
 *   subscriptions, the heartbeat and the feeding fibers go with it.
 * - Live frames that find the writer idle skip the fiber: see `openStream`.
 */

export interface SseOptions {
  /** Frames a subscriber may have waiting before it is dropped. Default 10 000. */
  readonly queueLimit?: number
  /** Milliseconds between heartbeat comments. Default 15 000. */
  readonly heartbeatMs?: number
}

export const DEFAULT_QUEUE_LIMIT = 10_000
export const DEFAULT_HEARTBEAT_MS = 15_000

/** An event as it travels: upstream's envelope (`{ id, type, durable?, data }`), already encoded. */
export interface WireEvent {
  readonly id: string
  readonly type: string
  readonly data: unknown
}

/** One SSE frame: an event (with its `id:` and `event:` fields when the stream names them) or a comment. */
export type Frame =
  | { readonly kind: "event"; readonly event: WireEvent; readonly id?: string; readonly name?: string }
  | { readonly kind: "comment"; readonly text: string }

const encoder = new TextEncoder()

/** The frame's text on the wire. */
export const encodeFrame = (frame: Frame): string =>
  frame.kind === "comment"
    ? `: ${frame.text}\n\n`
    : `${frame.id !== undefined ? `id: ${frame.id}\n` : ""}${frame.name !== undefined ? `event: ${frame.name}\n` : ""}data: ${JSON.stringify(frame.event)}\n\n`

// A frame offered to many subscribers (one bus event, 100 clients) is serialised and encoded once.
const encodedFrames = new WeakMap<Frame, Uint8Array>()

/** The frame's bytes on the wire; computed once per frame object, shared by every subscriber. */
export const frameBytes = (frame: Frame): Uint8Array => {
  let bytes = encodedFrames.get(frame)
  if (bytes === undefined) {
    bytes = encoder.encode(encodeFrame(frame))
    encodedFrames.set(frame, bytes)
  }
  return bytes
}

const HEARTBEAT: Frame = { kind: "comment", text: "heartbeat" }

/** The `server.error` event that ends a dropped subscriber's stream. */
export const slowConsumer = (message: string): Frame => ({
  kind: "event",
  event: { id: ascending("evt"), type: "server.error", data: { reason: "slow-consumer", message } },
})

/** The producing side of one subscriber's queue, handed to the stream's `feed`. */
export interface Feed {
  /**
   * Queues a live frame without ever suspending. Past the bound the subscriber is dropped (`server.error`,
   * then the end). False when the frame was not queued (dropped just now, or the stream has ended).
   */
  offer(frame: Frame): boolean
  /** Queues frames, waiting while the queue is full: for a source that is read as the client reads. */
  offerAll(frames: ReadonlyArray<Frame>): Effect.Effect<void>
  /** Ends the stream once what is queued is written. */
  finish(): void
}

/** An open event stream, which the server ends when it stops (`finish`: after what is queued; `close`: now). */
export interface OpenStream {
  finish(): void
  close(): void
}

export interface StreamOptions extends SseOptions {
  /** Frames written before anything else (e.g. `server.connected`). */
  readonly first?: ReadonlyArray<Frame>
  /**
   * Connects the sources to the queue, in the stream's scope: a subscription made synchronously here is in
   * place before the response is returned; fibers forked into the scope end with the stream.
   */
  readonly feed: (feed: Feed) => Effect.Effect<void, never, Scope.Scope>
  /** The request's signal: the client going away closes the stream. */
  readonly signal?: AbortSignal
  /** Registry of open streams (added at once, removed when the stream ends), so the server can end them. */
  readonly open?: Set<OpenStream>
  /** The runtime the stream's fibers run in (the host's, for its logger). Default: the empty context. */
  readonly context?: Context.Context<never>
}

/**
 * Where the subscriber queues wake their writers. A queue wakes its taker through the dispatcher of the
 * fiber that made it, by default with one `setImmediate` per queue: with a hundred subscribers that is a
 * hundred timer callbacks per event, and the frames wait for the loop's check phase. Instead every queue
 * shares one dispatcher that runs on a microtask, as the promise a hand-written channel would resolve: one
 * event wakes every writer in one task, right after the publishing code returns. Only the wake-up runs
 * there; the writers themselves yield on the runtime's own scheduler.
 */
const wakes = new Scheduler.MixedScheduler("sync")
const wakeDispatcher = wakes.makeDispatcher()
const WakeScheduler: Scheduler.Scheduler = {
  executionMode: wakes.executionMode,
  shouldYield: (fiber) => wakes.shouldYield(fiber),
  makeDispatcher: () => wakeDispatcher,
}

/** The writer Bun hands a direct stream's `pull`. */
interface DirectSink {
  write(chunk: Uint8Array): number | Promise<number>
  flush(): number | Promise<number> | undefined
  close(): void
}

const GONE = Symbol("gone")

/**
 * Writes frames (the shared bytes of each) and flushes once. Returns what the sink wants waited for (its
 * buffer is full), `GONE` when the client went away mid-write, or undefined when the frames are handed on.
 */
const writeNow = (sink: DirectSink, frames: ReadonlyArray<Frame>): Promise<unknown> | typeof GONE | undefined => {
  try {
    let pending: Promise<unknown> | undefined
    for (const frame of frames) {
      const written = sink.write(frameBytes(frame))
      if (typeof written === "object") pending = pending ? pending.then(() => written) : written
    }
    const flushed = pending ? pending.then(() => sink.flush()) : sink.flush()
    return typeof flushed === "object" && flushed !== null ? flushed : undefined
  } catch {
    return GONE
  }
}

/** `writeNow` as an effect: waits for a full sink; a client gone mid-write interrupts the stream. */
const writeFrames = (sink: DirectSink, frames: ReadonlyArray<Frame>, after?: Promise<unknown>): Effect.Effect<void> => {
  const settle = (pending: Promise<unknown> | typeof GONE | undefined): Effect.Effect<void> =>
    pending === undefined
      ? Effect.void
      : pending === GONE
        ? Effect.interrupt
        : Effect.matchEffect(Effect.tryPromise({ try: () => pending, catch: () => GONE }), {
            onFailure: () => Effect.interrupt,
            onSuccess: () => Effect.void,
          })
  return after === undefined
    ? settle(writeNow(sink, frames))
    : Effect.andThen(
        settle(after),
        Effect.suspend(() => settle(writeNow(sink, frames))),
      )
}

// Subscribers with frames from this turn, written in one microtask once the publishing code has returned.
let turn: Array<() => void> = []
const writeTurn = () => {
  const due = turn
  turn = []
  for (const write of due) write()
}
const afterTurn = (write: () => void) => {
  if (turn.push(write) === 1) queueMicrotask(writeTurn)
}

/**
 * Opens one subscriber's event stream: the queue and the feed are set up at once (so nothing published
 * after this call is missed), the body is Bun's direct stream, written as the client reads.
 *
 * The common case has a short cut. Frames offered while the writer fiber waits on an empty queue with its
 * sink ready (live frames, and a waiting source's while they fit the bound) are gathered for the current
 * turn and written, all of them in one write, by one microtask shared by every subscriber, without waking
 * the fiber: resuming a fiber per subscriber per event costs microseconds each in a busy runtime, which
 * with a hundred subscribers is most of the latency budget.
 * The bound and the order are the queue's: the turn's frames count against `queueLimit` (an overflow drops
 * them with the queue), and once anything is queued or the sink is full, frames go through the queue.
 */
export const openStream = (options: StreamOptions): { readonly body: ReadableStream<Uint8Array> } & OpenStream => {
  const limit = Math.max(1, options.queueLimit ?? DEFAULT_QUEUE_LIMIT)
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS
  let queue!: Queue.Queue<Frame, Cause.Done>
  let sink: DirectSink | undefined
  let sinkArrived: ((sink: DirectSink) => void) | undefined
  let ended = false
  // The writer fiber waits on an empty queue with its sink ready.
  let idle = false
  // A short-cut write the sink asked to wait for: the writer waits for it before writing anything else.
  let waiting: Promise<unknown> | undefined
  // This turn's frames, when the short cut is taken.
  let gathered: Array<Frame> = []

  const shortCut = () => gathered.length > 0 || (idle && waiting === undefined && Queue.sizeUnsafe(queue) === 0)
  const writeGathered = () => {
    const frames = gathered
    gathered = []
    if (ended || frames.length === 0) return
    if (!idle || waiting !== undefined || Queue.sizeUnsafe(queue) > 0) {
      // The writer got busy meanwhile (it cannot, but the queue keeps the order if it ever does).
      if (Queue.offerAllUnsafe(queue, frames).length > 0) overflow()
      return
    }
    const pending = writeNow(sink!, frames)
    if (pending === GONE) close()
    else if (pending !== undefined) {
      waiting = pending
      const settled = () => {
        if (waiting === pending) waiting = undefined
      }
      pending.then(settled, settled)
    }
  }
  const gather = (frame: Frame) => {
    if (gathered.push(frame) === 1) afterTurn(writeGathered)
  }
  const overflow = () => {
    // The subscriber is too far behind. Drop what it has waiting, tell it why, and end.
    gathered = []
    Effect.runSync(Queue.clear(queue))
    Queue.offerUnsafe(
      queue,
      slowConsumer(`The subscriber fell more than ${limit} events behind and was disconnected; reconnect to continue`),
    )
    finish()
  }
  const finish = () => {
    if (ended) return
    ended = true
    // This turn's frames go first; they fit, as the queue is empty while frames are gathered.
    if (gathered.length > 0) Queue.offerAllUnsafe(queue, gathered)
    gathered = []
    Queue.endUnsafe(queue)
  }
  const close = () => {
    ended = true
    gathered = []
    fiber?.interruptUnsafe()
  }
  const feed: Feed = {
    offer(frame) {
      if (ended) return false
      if (shortCut()) {
        if (gathered.length >= limit) {
          overflow()
          return false
        }
        gather(frame)
        return true
      }
      if (Queue.offerUnsafe(queue, frame)) return true
      overflow()
      return false
    },
    offerAll: (frames) =>
      Effect.suspend(() => {
        if (ended) return Effect.void
        // What fits the bound is gathered like live frames when the writer is idle (the log's live tail).
        if (shortCut() && gathered.length + frames.length <= limit) {
          for (const frame of frames) gather(frame)
          return Effect.void
        }
        // This turn's gathered frames first (they fit: the queue is empty while frames are gathered).
        if (gathered.length > 0) Queue.offerAllUnsafe(queue, gathered)
        gathered = []
        return Effect.asVoid(Queue.offerAll(queue, frames))
      }),
    finish,
  }
  // A full queue skips a beat rather than dropping the subscriber (a paged source may be waiting on it).
  let fiber: Fiber.Fiber<void> | undefined
  const beat = () => {
    if (ended) return
    if (shortCut()) {
      if (gathered.length < limit) gather(HEARTBEAT)
    } else Queue.offerUnsafe(queue, HEARTBEAT)
  }

  const program = Effect.gen(function* () {
    queue = yield* Queue.bounded<Frame, Cause.Done>(limit).pipe(
      Effect.provideService(Scheduler.Scheduler, WakeScheduler),
    )
    if (options.open) {
      options.open.add(handle)
      yield* Effect.addFinalizer(() => Effect.sync(() => options.open!.delete(handle)))
    }
    yield* options.feed(feed)
    // Beside the frames, in the same scope.
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(heartbeatMs), Effect.sync(beat))))
    const writer = yield* Effect.callback<DirectSink>((resume) => {
      sinkArrived = (arrived) => resume(Effect.succeed(arrived))
    })
    if (options.first && options.first.length > 0) yield* writeFrames(writer, options.first)
    idle = true
    yield* Stream.fromQueue(queue).pipe(
      Stream.runForEachArray((frames) => {
        idle = false
        const after = waiting
        waiting = undefined
        return Effect.ensuring(
          writeFrames(writer, frames, after),
          Effect.sync(() => {
            idle = true
          }),
        )
      }),
    )
  }).pipe(
    Effect.scoped,
    Effect.ensuring(
      Effect.sync(() => {
        ended = true
        idle = false
        gathered = []
        const last = waiting
        waiting = undefined
        const end = () => {
          try {
            sink?.close()
          } catch {
            // already closed or cancelled
          }
        }
        // A direct write still in flight is let through before the end.
        if (last) last.then(end, end)
        else end()
      }),
    ),
  )

  const handle: OpenStream = { finish, close }
  // Runs synchronously up to waiting for the sink: the queue and the subscriptions exist when this returns.
  fiber = Effect.runForkWith(options.context ?? Context.empty())(program)
  const running = fiber
  const done = new Promise<void>((resolve) => running.addObserver(() => resolve()))
  if (options.signal) {
    if (options.signal.aborted) close()
    else options.signal.addEventListener("abort", close, { once: true })
  }

  // Bun's direct stream: frames are written straight into the response's sink, without a queue of chunks
  // and a promise per read in between (the cost that dominates with many subscribers).
  const body = new ReadableStream<Uint8Array>({
    type: "direct",
    pull: (given: DirectSink) => {
      if (sink) return done
      sink = given
      if (running.pollUnsafe() !== undefined) {
        try {
          given.close()
        } catch {
          // already closed
        }
        return
      }
      sinkArrived?.(given)
      return done
    },
    cancel: close,
  } as unknown as UnderlyingDefaultSource<Uint8Array>)
  return { body, finish, close }
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const
