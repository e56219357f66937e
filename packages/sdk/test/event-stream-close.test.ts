import { afterAll, expect, it } from "vitest"
import { createOpencodeClient, sessionEvents, subscribe } from "../src/index.ts"

// A stand-in server on loopback: every stream sends one event and stays open.
const encoder = new TextEncoder()
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const path = new URL(request.url).pathname
    const event =
      path === "/api/event"
        ? { id: "evt_1", type: "server.connected", data: { version: "test" } }
        : { id: "evt_2", type: "session.next.renamed", durable: { aggregateID: "ses_1", seq: 1, version: 1 }, data: {} }
    return new Response(
      new ReadableStream({
        start: (controller) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`)),
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  },
})
afterAll(() => server.stop(true))

/** One turn of the event loop: a rejection nobody handled has been reported by then. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

for (const [name, open] of [
  ["subscribe", () => subscribe(createOpencodeClient({ baseUrl: server.url.href }))],
  ["sessionEvents", () => sessionEvents(createOpencodeClient({ baseUrl: server.url.href }), { sessionID: "ses_1" })],
] as const) {
  it(`${name}: closing the stream while a read waits ends the iteration and leaves no unhandled rejection`, async () => {
    const unhandled: Array<unknown> = []
    const record = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", record)
    try {
      const stream = await open()
      const iterator = stream[Symbol.asyncIterator]()
      expect((await iterator.next()).done).toBe(false)
      const waiting = iterator.next()
      stream.close()
      expect(await waiting).toEqual({ done: true, value: undefined })
      await turn()
      await turn()
      expect(unhandled.map(String)).toEqual([])
    } finally {
      process.off("unhandledRejection", record)
    }
  })
}
