import { describe, expect, it } from "vitest"
import { type Frame, SseChannel, type WireEvent } from "../src/sse.ts"
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

const seqOf = (frame: Frame) =>
  frame.kind === "event" ? (frame.event as { durable?: { seq: number } }).durable?.seq : undefined

const decoder = new TextDecoder()

const readAll = (stream: ReadableStream<Uint8Array>) => readRest(stream.getReader())

const dataLines = (text: string) =>
  [...text.matchAll(/^data: (.*)$/gm)].map(
    (m) => JSON.parse(m[1]!) as { type: string; durable?: { seq: number }; data: unknown },
  )

describe("an SSE subscriber channel", () => {
  it("never blocks the publisher: past its bound it drops the queue and ends with server.error", async () => {
    let closed = 0
    const channel = new SseChannel({ queueLimit: 3, heartbeatMs: 60_000, onClose: () => closed++ })
    const accepted = [1, 2, 3, 4, 5].map((n) => channel.offer(event(n)))
    expect(accepted).toEqual([true, true, true, false, false])
    expect(closed).toBe(1)
    const events = dataLines(await readAll(channel.stream))
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: "server.error",
        data: { reason: "slow-consumer", message: expect.stringContaining("3") },
      },
    ])
    expect(closed).toBe(1)
  })

  it("writes first frames, then the backlog page by page, then accepted live frames", async () => {
    const pages = [[event(1), event(2)], [event(3)], []]
    let position = 0
    const channel = new SseChannel({
      heartbeatMs: 60_000,
      first: [{ kind: "event", event: { id: "evt_0", type: "server.connected", data: { version: "x" } } }],
      backlog: () => {
        const page = pages.shift() ?? []
        for (const frame of page) position = seqOf(frame) ?? position
        return page
      },
      accept: (frame) => (seqOf(frame) ?? Infinity) > position,
    })
    // Live frames that arrive during catch-up, overlapping it.
    channel.offer(event(3))
    channel.offer(event(4))
    channel.finish()
    const text = await readAll(channel.stream)
    expect(dataLines(text).map((e) => e.durable?.seq ?? e.type)).toEqual(["server.connected", 1, 2, 3, 4])
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(["1", "2", "3", "4"])
  })

  it("stops queueing and releases its subscription when the reader cancels", async () => {
    let closed = 0
    const channel = new SseChannel({ heartbeatMs: 60_000, onClose: () => closed++ })
    const reader = channel.stream.getReader()
    channel.offer(event(1))
    expect((await reader.read()).done).toBe(false)
    await reader.cancel()
    expect(closed).toBe(1)
    expect(channel.offer(event(2))).toBe(false)
  })

  it("queues heartbeat comments", async () => {
    const channel = new SseChannel({ heartbeatMs: 5 })
    const reader = channel.stream.getReader()
    const { value } = await reader.read()
    expect(decoder.decode(value)).toBe(": heartbeat\n\n")
    await reader.cancel()
  })

  it("over HTTP, a client that goes away (abort or a cut socket) releases the channel", async () => {
    const closes: Array<() => void> = []
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        const release = closes.shift()!
        const channel = new SseChannel({
          heartbeatMs: 60_000,
          first: [{ kind: "comment", text: "hello" }],
          onClose: release,
        })
        request.signal.addEventListener("abort", () => channel.close(), { once: true })
        return new Response(channel.stream)
      },
    })
    try {
      const released = (n: number) =>
        Array.from({ length: n }, () => new Promise<void>((resolve) => closes.push(resolve)))
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
