import { ascending } from "@opencode-ai/core"

/**
 * One server-sent-events subscriber: a bounded queue fed synchronously (bus listeners run inside commit
 * publication and must never block), drained by the HTTP response as fast as the client reads.
 *
 * - The queue holds at most `queueLimit` frames. A subscriber that falls that far behind is dropped: the
 *   queue is discarded, a final `server.error` event is sent and the stream ends. Publishing never waits.
 * - A comment line is queued every `heartbeatMs`, so proxies and clients see the connection is alive.
 * - An optional `backlog` is drained before the live queue (the durable log's catch-up), page by page,
 *   while live frames wait in the queue; `accept` can drop live frames the backlog already covered.
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

export interface ChannelOptions extends SseOptions {
  /** Frames written before anything else (e.g. `server.connected`). */
  readonly first?: ReadonlyArray<Frame>
  /** Called once when the channel closes for any reason (client gone, dropped, server stopping). */
  readonly onClose?: () => void
  /** Pages sent before the live queue; return an empty page when done. Runs on the reading side. */
  readonly backlog?: () => ReadonlyArray<Frame>
  /** Filters live frames just before they are written (not when queued). */
  readonly accept?: (frame: Frame) => boolean
}

const encoder = new TextEncoder()

// A frame offered to many subscribers (one bus event, 100 clients) is serialised once.
const encodedFrames = new WeakMap<Frame, string>()

/** The frame's text on the wire; computed once per frame object. */
export const encodeFrame = (frame: Frame): string => {
  let text = encodedFrames.get(frame)
  if (text === undefined) {
    text =
      frame.kind === "comment"
        ? `: ${frame.text}\n\n`
        : `${frame.id !== undefined ? `id: ${frame.id}\n` : ""}${frame.name !== undefined ? `event: ${frame.name}\n` : ""}data: ${JSON.stringify(frame.event)}\n\n`
    encodedFrames.set(frame, text)
  }
  return text
}

export class SseChannel {
  readonly stream: ReadableStream<Uint8Array>
  private queue: Array<Frame> = []
  private ending = false
  private closed = false
  private wake: (() => void) | undefined
  private backlog: (() => ReadonlyArray<Frame>) | undefined
  private readonly limit: number
  private readonly heartbeat: ReturnType<typeof setInterval>

  constructor(private readonly options: ChannelOptions = {}) {
    this.limit = Math.max(1, options.queueLimit ?? DEFAULT_QUEUE_LIMIT)
    this.backlog = options.backlog
    this.heartbeat = setInterval(
      () => this.offer({ kind: "comment", text: "heartbeat" }),
      options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    )
    this.heartbeat.unref?.()
    // Bun's direct stream: frames are written straight into the response's sink, without a queue of
    // chunks and a promise per read in between (the cost that dominates with many subscribers).
    this.stream = new ReadableStream<Uint8Array>({
      type: "direct",
      pull: (sink: DirectSink) => this.drain(sink),
      cancel: () => this.close(),
    } as unknown as UnderlyingDefaultSource<Uint8Array>)
  }

  /** Queues a frame; never blocks. Returns false when the channel is closed or was just dropped. */
  offer(frame: Frame): boolean {
    if (this.ending || this.closed) return false
    if (this.queue.length >= this.limit) {
      this.queue = []
      this.finish({
        kind: "event",
        event: {
          id: ascending("evt"),
          type: "server.error",
          data: {
            reason: "slow-consumer",
            message: `The subscriber fell more than ${this.limit} events behind and was disconnected; reconnect to continue`,
          },
        },
      })
      return false
    }
    this.queue.push(frame)
    this.signal()
    return true
  }

  /** Queues an optional last frame, then ends the stream once the queue is written. */
  finish(last?: Frame) {
    if (this.ending || this.closed) return
    if (last) this.queue.push(last)
    this.ending = true
    this.release()
    this.signal()
  }

  /** Ends the stream now, dropping whatever is queued. */
  close() {
    if (this.closed) return
    this.closed = true
    this.queue = []
    this.release()
    this.signal()
  }

  /** Whether the channel takes no more frames (finished, dropped or closed). */
  get isEnded() {
    return this.ending || this.closed
  }

  private released = false
  private release() {
    if (this.released) return
    this.released = true
    clearInterval(this.heartbeat)
    this.options.onClose?.()
  }

  private signal() {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  /** Whether `drain` has started: a reader may call `pull` again, but one loop writes everything. */
  private draining = false

  /**
   * Writes everything the channel gets, as it gets it, until it ends: first frames, the backlog page by
   * page, then the live queue. A write the client is not ready for (its socket buffer full) is awaited,
   * so meanwhile frames accumulate in the queue, which is what drops a slow consumer.
   */
  private async drain(sink: DirectSink): Promise<void> {
    if (this.draining) return
    this.draining = true
    const write = async (text: string) => {
      await sink.write(encoder.encode(text))
      await sink.flush()
    }
    try {
      const first = this.options.first ?? []
      if (first.length > 0) await write(first.map(encodeFrame).join(""))
      for (;;) {
        if (this.closed) break
        if (this.backlog) {
          const page = this.backlog()
          if (page.length > 0) {
            await write(page.map(encodeFrame).join(""))
            continue
          }
          this.backlog = undefined
        }
        if (this.queue.length > 0) {
          const frames = this.queue
          this.queue = []
          const accept = this.options.accept
          const text = (accept ? frames.filter(accept) : frames).map(encodeFrame).join("")
          if (text.length > 0) await write(text)
          continue
        }
        if (this.ending) {
          this.closed = true
          break
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve
        })
      }
    } catch {
      // The client went away mid-write: nothing more can be sent.
      this.closed = true
    }
    this.release()
    try {
      sink.close()
    } catch {
      // already closed or cancelled
    }
  }
}

/** The writer Bun hands a direct stream's `pull`. */
interface DirectSink {
  write(chunk: Uint8Array): number | Promise<number>
  flush(): number | Promise<number>
  close(): void
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const
