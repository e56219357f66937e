import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type Feed, type Frame, type OpenStream, openStream, type WireEvent } from "../src/sse.ts"
import { readRest } from "./support/stream.ts"

const event = (n: number): Frame => ({
  kind: "event",
  event: {
    id: `evt_${n}`,
    type: "test",
    durable: { aggregateID: "ses_1", seq: n, version: 1 },
    data: { n, sessionID: "ses_1", timestamp: 0 },
  } as WireEvent,
  id: String(n),
})

/**
 * Opens a stream whose feed is handed back, with a finaliser that counts how often its scope released it.
 * `released()` is the number of times the subscription was released (never more than once).
 */
const open = (options: { queueLimit?: number; heartbeatMs?: number; first?: ReadonlyArray<Frame> } = {}) => {
  let feed!: Feed
  let released = 0
  const registry = new Set<OpenStream>()
  const stream = openStream({
    heartbeatMs: 60_000,
    ...options,
    open: registry,
    feed: (given) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          feed = given
        }),
        () => Effect.sync(() => released++),
      ),
  })
  return { stream, feed, registry, released: () => released }
}

const decoder = new TextDecoder()

const readAll = (stream: ReadableStream<Uint8Array>) => readRest(stream.getReader())

const dataLines = (text: string) =>
  [...text.matchAll(/^data: (.*)$/gm)].map(
    (m) => JSON.parse(m[1]!) as { type: string; durable?: { seq: number }; data: unknown },
  )

describe("an SSE subscriber stream (scoped queue drained into the response sink)", () => {
  it("never blocks the publisher: past its bound it drops the queue and ends with server.error", async () => {
    const { stream, feed, registry, released } = open({ queueLimit: 3 })
    expect(registry.size).toBe(1)
    const accepted = [1, 2, 3, 4, 5].map((n) => feed.offer(event(n)))
    expect(accepted).toEqual([true, true, true, false, false])
    const events = dataLines(await readAll(stream.body))
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: "server.error",
        data: { reason: "slow-consumer", message: expect.stringContaining("3") },
      },
    ])
    expect(released()).toBe(1)
    expect(registry.size).toBe(0)
  })

  it("writes first frames, then what the feed queues, waiting sources included, then ends when finished", async () => {
    let paged!: Effect.Effect<void>
    const stream = openStream({
      heartbeatMs: 60_000,
      // A queue of two: the paged source must wait for the reader between its pages.
      queueLimit: 2,
      first: [{ kind: "event", event: { id: "evt_0", type: "server.connected", data: { version: "x" } } }],
      feed: (feed) =>
        Effect.sync(() => {
          feed.offer(event(1))
          paged = Effect.gen(function* () {
            yield* feed.offerAll([event(2), event(3)])
            yield* feed.offerAll([event(4), event(5)])
            feed.finish()
          })
        }),
    })
    const read = readAll(stream.body)
    await Effect.runPromise(paged)
    const text = await read
    expect(dataLines(text).map((e) => e.durable?.seq ?? e.type)).toEqual(["server.connected", 1, 2, 3, 4, 5])
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(["1", "2", "3", "4", "5"])
  })

  it("writes a turn's live frames to an idle subscriber together, and counts them against the bound", async () => {
    const first: Frame = { kind: "comment", text: "hello" }
    const idle = open({ queueLimit: 2, first: [first] })
    const reader = idle.stream.body.getReader()
    expect(decoder.decode((await reader.read()).value)).toBe(": hello\n\n")
    // The writer now waits on an empty queue: one turn's frames go out in one write.
    expect([idle.feed.offer(event(1)), idle.feed.offer(event(2))]).toEqual([true, true])
    const chunk = decoder.decode((await reader.read()).value)
    expect(dataLines(chunk).map((e) => e.durable?.seq)).toEqual([1, 2])
    // Three in one turn is past the bound of two: none of them is written, the stream ends with server.error.
    expect([3, 4, 5].map((n) => idle.feed.offer(event(n)))).toEqual([true, true, false])
    let rest = ""
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += decoder.decode(value)
    }
    expect(dataLines(rest)).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: "server.error",
        data: { reason: "slow-consumer", message: expect.stringContaining("2") },
      },
    ])
    expect(idle.released()).toBe(1)
  })

  it("close drops what is queued and ends at once; finish writes it first", async () => {
    const finished = open()
    finished.feed.offer(event(1))
    finished.stream.finish()
    expect(finished.feed.offer(event(2))).toBe(false)
    expect(dataLines(await readAll(finished.stream.body)).map((e) => e.durable?.seq)).toEqual([1])

    const closed = open()
    closed.feed.offer(event(1))
    closed.stream.close()
    expect(await readAll(closed.stream.body)).toBe("")
    expect(closed.released()).toBe(1)
    expect(closed.registry.size).toBe(0)
  })

  it("stops queueing and releases its subscription when the reader cancels", async () => {
    const { stream, feed, released } = open()
    const reader = stream.body.getReader()
    feed.offer(event(1))
    expect((await reader.read()).done).toBe(false)
    await reader.cancel()
    expect(released()).toBe(1)
    expect(feed.offer(event(2))).toBe(false)
  })

  it("queues heartbeat comments", async () => {
    const { stream } = open({ heartbeatMs: 5 })
    const reader = stream.body.getReader()
    const { value } = await reader.read()
    expect(decoder.decode(value)).toBe(": heartbeat\n\n")
    await reader.cancel()
  })

  it("over HTTP, a client that goes away (abort or a cut socket) releases the stream", async () => {
    const releases: Array<() => void> = []
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const release = releases.shift()!
        const { body } = openStream({
          heartbeatMs: 60_000,
          first: [{ kind: "comment", text: "hello" }],
          signal: request.signal,
          feed: () => Effect.addFinalizer(() => Effect.sync(release)),
        })
        return new Response(body)
      },
    })
    try {
      const released = (n: number) =>
        Array.from({ length: n }, () => new Promise<void>((resolve) => releases.push(resolve)))
      const aborted = released(1)
      const controller = new AbortController()
      const response = await fetch(server.url, { signal: controller.signal })
      expect(decoder.decode((await response.body!.getReader().read()).value)).toBe(": hello\n\n")
      controller.abort()
      await Promise.all(aborted)

      const cut = released(1)
      let greeted!: () => void
      const hello = new Promise<void>((resolve) => (greeted = resolve))
      const socket = await Bun.connect({
        hostname: "127.0.0.1",
        port: server.port!,
        socket: {
          open: (s) => void s.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
          data: (_s, data) => {
            if (decoder.decode(data).includes(": hello")) greeted()
          },
        },
      })
      await hello
      socket.end()
      await Promise.all(cut)
    } finally {
      server.stop(true)
    }
  })
})
