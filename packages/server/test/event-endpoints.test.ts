import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { apiClient, TestApi, testApiLayer } from "./support/api-server.ts"

/**
 * The two event streams are HttpApi endpoints: the typed HttpApi client opens them (a byte stream of SSE
 * frames), and their refusals come back as the declared typed errors.
 */

interface Frame {
  readonly id?: string
  readonly event?: string
  readonly data?: { readonly type: string; readonly data: Record<string, unknown> }
  readonly comment?: string
}

const parse = (block: string): Frame => {
  const frame: Record<string, unknown> = {}
  for (const line of block.split("\n")) {
    if (line.startsWith(": ")) frame.comment = line.slice(2)
    else if (line.startsWith("id: ")) frame.id = line.slice(4)
    else if (line.startsWith("event: ")) frame.event = line.slice(7)
    else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6))
  }
  return frame as Frame
}

/** SSE frames of a byte stream, in order, until `until` holds for one (included). */
const framesUntil = (bytes: Stream.Stream<Uint8Array, unknown>, until: (frame: Frame) => boolean) =>
  bytes.pipe(
    Stream.decodeText,
    Stream.mapAccum(
      () => "",
      (buffer, text) => {
        const blocks = (buffer + text).split("\n\n")
        const rest = blocks.pop()!
        return [rest, blocks.filter((block) => block !== "").map(parse)]
      },
    ),
    Stream.takeUntil(until),
    Stream.runCollect,
    Effect.map((chunk) => [...chunk]),
  )

const isSynthetic = (text: string) => (frame: Frame) =>
  frame.data?.type === "session.next.synthetic" && frame.data.data.text === text

layer(testApiLayer())("event streams through the HttpApi client", (it) => {
  it.effect("v2.event.subscribe: server.connected first, then the session's events as they commit", () =>
    Effect.gen(function* () {
      const client = yield* apiClient
      const session = (yield* client["v2.session"].create({ payload: {} })).data
      const stream = yield* client["v2.event"].subscribe({ query: { sessionID: session.id } })
      const reading = yield* Effect.forkChild(framesUntil(stream, isSynthetic("live notice")), {
        startImmediately: true,
      })
      yield* client["v2.session"].synthetic({
        params: { sessionID: session.id },
        payload: { text: "live notice", resume: false },
      })
      const frames = yield* Fiber.join(reading)
      expect(frames[0]!.data).toMatchObject({ type: "server.connected" })
      expect(frames.at(-1)!.data).toMatchObject({ type: "session.next.synthetic", data: { sessionID: session.id } })
      // Filtered to the session: every event frame is this session's.
      for (const frame of frames.slice(1)) {
        if (frame.data) expect(frame.data.data.sessionID).toBe(session.id)
      }
    }),
  )

  it.effect("v2.session.events: replays after a seq with id and event fields, then goes live", () =>
    Effect.gen(function* () {
      const client = yield* apiClient
      const session = (yield* client["v2.session"].create({ payload: {} })).data
      yield* client["v2.session"].synthetic({
        params: { sessionID: session.id },
        payload: { text: "before", resume: false },
      })
      const history = (yield* client["v2.session"].history({ params: { sessionID: session.id }, query: {} })).data
      const first = history[0]!
      const seqOf = (event: unknown) => (event as { durable: { seq: number } }).durable.seq
      const stream = yield* client["v2.session"].events({
        params: { sessionID: session.id },
        query: { after: String(seqOf(first)) },
      })
      const reading = yield* Effect.forkChild(framesUntil(stream, isSynthetic("after")), { startImmediately: true })
      yield* client["v2.session"].synthetic({
        params: { sessionID: session.id },
        payload: { text: "after", resume: false },
      })
      const frames = (yield* Fiber.join(reading)).filter((frame) => frame.data !== undefined)
      // Everything after the first event, in order and without gaps, each frame naming its seq and type.
      const ids = frames.map((frame) => Number(frame.id))
      expect(ids.slice(0, history.length - 1)).toEqual(history.slice(1).map(seqOf))
      expect(ids).toEqual(ids.map((_, i) => seqOf(first) + 1 + i))
      for (const frame of frames) {
        expect(frame.event).toBe(frame.data!.type)
        expect(Number(frame.id)).toBeGreaterThan(seqOf(first))
      }
      expect(frames.some(isSynthetic("before"))).toBe(true)
      expect(frames.at(-1)).toSatisfy(isSynthetic("after"))
    }),
  )

  it.effect("HEAD answers a stream's headers without a body and opens no stream; it refuses like GET", () =>
    Effect.gen(function* () {
      const client = yield* apiClient
      const server = yield* TestApi
      const session = (yield* client["v2.session"].create({ payload: {} })).data
      for (const path of ["/api/event", `/api/event?sessionID=${session.id}`, `/api/session/${session.id}/event`]) {
        const head = yield* Effect.promise(() => server.fetch(path, { method: "HEAD" }))
        expect(head.status, path).toBe(200)
        expect(head.headers.get("content-type"), path).toMatch(/^text\/event-stream/)
        expect(yield* Effect.promise(() => head.text())).toBe("")
        expect(server.openStreams(), path).toBe(0)
      }
      const missing = yield* Effect.promise(() => server.fetch("/api/session/ses_missing/event", { method: "HEAD" }))
      expect(missing.status).toBe(404)
      // A GET does open one, until it is read to its end or cancelled.
      const get = yield* Effect.promise(() => server.fetch("/api/event"))
      expect(server.openStreams()).toBe(1)
      yield* Effect.promise(() => get.body!.cancel())
    }),
  )

  it.effect("refusals are the declared typed errors", () =>
    Effect.gen(function* () {
      const client = yield* apiClient
      const missing = yield* Effect.flip(client["v2.event"].subscribe({ query: { sessionID: "ses_missing" } }))
      expect(missing).toMatchObject({ _tag: "SessionNotFoundError", sessionID: "ses_missing" })
      const unknown = yield* Effect.flip(
        client["v2.session"].events({ params: { sessionID: "ses_missing" }, query: {} }),
      )
      expect(unknown).toMatchObject({ _tag: "SessionNotFoundError", sessionID: "ses_missing" })
      const session = (yield* client["v2.session"].create({ payload: {} })).data
      const bad = yield* Effect.flip(
        client["v2.session"].events({ params: { sessionID: session.id }, query: { after: "-1" } }),
      )
      expect(bad).toMatchObject({ _tag: "InvalidRequestError", field: "after" })
      // A malformed session id is refused before routing, with the field named.
      const server = yield* TestApi
      const malformed = yield* Effect.promise(() => server.fetch("/api/session/not-an-id/event"))
      expect(malformed.status).toBe(400)
      expect(yield* Effect.promise(() => malformed.json())).toMatchObject({ _tag: "InvalidRequestError" })
    }),
  )
})

describe("without the event journal", () => {
  layer(testApiLayer({ config: { events: { persist: false } } }))((it) => {
    it.effect("v2.session.events is 409 JournalDisabledError", () =>
      Effect.gen(function* () {
        const client = yield* apiClient
        const session = (yield* client["v2.session"].create({ payload: {} })).data
        const refused = yield* Effect.flip(
          client["v2.session"].events({ params: { sessionID: session.id }, query: {} }),
        )
        expect(refused).toMatchObject({ _tag: "JournalDisabledError" })
      }),
    )
  })
})
