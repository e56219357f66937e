import type { ServerEvent } from "./api/event.ts"

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

export type Frame =
  | { readonly kind: "event"; readonly event: ServerEvent; readonly id?: string }
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

export const encodeFrame = (frame: Frame) =>
  frame.kind === "comment"
    ? `: ${frame.text}\n\n`
    : `${frame.id !== undefined ? `id: ${frame.id}\n` : ""}data: ${JSON.stringify(frame.event)}\n\n`

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
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.pull(controller),
        cancel: () => this.close(),
      },
      { highWaterMark: 1 },
    )
  }

  /** Queues a frame; never blocks. Returns false when the channel is closed or was just dropped. */
  offer(frame: Frame): boolean {
    if (this.ending || this.closed) return false
    if (this.queue.length >= this.limit) {
      this.queue = []
      this.finish({
        kind: "event",
        event: {
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

  private first: ReadonlyArray<Frame> | undefined

  private async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (this.first === undefined) {
      this.first = this.options.first ?? []
      if (this.first.length > 0) return controller.enqueue(encoder.encode(this.first.map(encodeFrame).join("")))
    }
    for (;;) {
      if (this.closed) return this.end(controller)
      if (this.backlog) {
        const page = this.backlog()
        if (page.length > 0) return controller.enqueue(encoder.encode(page.map(encodeFrame).join("")))
        this.backlog = undefined
      }
      if (this.queue.length > 0) {
        const frames = this.queue
        this.queue = []
        const accept = this.options.accept
        const text = (accept ? frames.filter(accept) : frames).map(encodeFrame).join("")
        if (text.length > 0) return controller.enqueue(encoder.encode(text))
        continue
      }
      if (this.ending) {
        this.closed = true
        return this.end(controller)
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  private end(controller: ReadableStreamDefaultController<Uint8Array>) {
    this.release()
    try {
      controller.close()
    } catch {
      // already closed or cancelled
    }
  }
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const
