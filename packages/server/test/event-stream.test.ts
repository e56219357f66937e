import {
  EventStreamError,
  type OpencodeClient,
  type SessionDurableEvent,
  sessionEvents,
  subscribe,
  type V2Event,
} from "@opencode-ai/sdk/v2"
import { describe, expect, it } from "vitest"
import { startTestServer } from "./support/server.ts"
import { readUntil } from "./support/stream.ts"

type Durable = Extract<V2Event, { durable: unknown }>
const isDurable = (event: V2Event): event is Durable => "durable" in event
const sessionOf = (event: V2Event) => (event.data as { sessionID?: string }).sessionID

/** Opens the global stream and checks that `server.connected` comes first, so everything after is observed. */
const connected = async (client: OpencodeClient, sessionID?: string) => {
  const stream = await subscribe(client, sessionID ? { sessionID } : {})
  const iterator = stream[Symbol.asyncIterator]()
  const first = await iterator.next()
  expect(first.value).toEqual({
    id: expect.stringMatching(/^evt_/),
    type: "server.connected",
    data: { version: expect.any(String) },
  })
  return { iterator, close: () => stream.close() }
}

/** Reads events until `done` holds for one (inclusive), or the stream ends. */
const until = async <E>(iterator: AsyncIterator<E>, done: (event: E) => boolean) => {
  const events: Array<E> = []
  for (;;) {
    const next = await iterator.next()
    if (next.done) return events
    events.push(next.value)
    if (done(next.value)) return events
  }
}

const turnEnded = (event: V2Event | SessionDurableEvent) => event.type === "session.next.turn.ended"

/** Reads a raw SSE response until `match` appears in the text, then closes it. */
const readResponseUntil = async (response: Response, match: (text: string) => boolean) => {
  const { text, reader } = await readUntil(response.body!, match)
  await reader.cancel()
  return text
}

const prompt = async (client: OpencodeClient, sessionID: string, text: string) =>
  (await client.v2.session.prompt({ sessionID, prompt: { text } })).data!.data

const create = async (client: OpencodeClient) => (await client.v2.session.create({})).data!.data.id

const seqOf = (client: OpencodeClient, sessionID: string) =>
  client.v2.session.get({ sessionID }).then((r) => r.data!.data.seq)

describe("live events over server-sent events", () => {
  it("delivers server.connected, then a whole offline turn's durable events in seq order, with deltas", async () => {
    const { client } = await startTestServer()
    const sessionID = await create(client)
    const stream = await connected(client, sessionID)
    await prompt(client, sessionID, "/think hi\n/tool list {}")
    const events = await until(stream.iterator, turnEnded)
    stream.close()

    const durable = events.filter(isDurable)
    // seq 1 is the session's creation, committed before the subscription.
    expect(durable.map((e) => e.durable.seq)).toEqual(durable.map((_, i) => i + 2))
    expect(
      durable.every(
        (e) =>
          e.durable.aggregateID === sessionID &&
          e.data.sessionID === sessionID &&
          e.id.startsWith("evt_") &&
          e.durable.version === 1 &&
          typeof e.data.timestamp === "number",
      ),
    ).toBe(true)
    const types = durable.map((e) => e.type)
    expect(types[0]).toBe("session.next.prompt.admitted")
    expect(types[1]).toBe("session.next.turn.started")
    expect(types.filter((t) => t === "session.next.step.started")).toHaveLength(2)
    expect(types.filter((t) => t === "session.next.step.ended")).toHaveLength(2)
    expect(types.at(-1)).toBe("session.next.turn.ended")
    const deltas = events.filter(
      (e) => e.type === "session.next.text.delta" || e.type === "session.next.reasoning.delta",
    )
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas.every((e) => !isDurable(e) && sessionOf(e) === sessionID && e.id.startsWith("evt_"))).toBe(true)
    expect(deltas.some((e) => e.type === "session.next.reasoning.delta")).toBe(true)
    expect(deltas.some((e) => e.type === "session.next.text.delta")).toBe(true)

    // The durable events describe what the projection now holds.
    const messages = (await client.v2.session.messages({ sessionID })).data!.data
    const last = durable.at(-1)!
    expect(await seqOf(client, sessionID)).toBe(last.durable.seq)
    expect(messages.at(-1)!.seq).toBeLessThan(last.durable.seq)
  })

  it("filters by session, and sends every session's events without a filter", async () => {
    const { client } = await startTestServer()
    const a = await create(client)
    const b = await create(client)
    const onlyA = await connected(client, a)
    const all = await connected(client)
    await prompt(client, b, "for b")
    await client.v2.session.wait({ sessionID: b })
    await prompt(client, a, "for a")
    const seenByA = await until(onlyA.iterator, turnEnded)
    const seenByAll = await until(all.iterator, (e) => turnEnded(e) && sessionOf(e) === a)
    onlyA.close()
    all.close()
    expect(new Set(seenByA.map(sessionOf))).toEqual(new Set([a]))
    expect(new Set(seenByAll.map(sessionOf))).toEqual(new Set([a, b]))
  })

  it("refuses a filter on an unknown session with a typed 404", async () => {
    const { client } = await startTestServer()
    const failure = await subscribe(client, { sessionID: "ses_missing" }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(EventStreamError)
    expect(failure).toMatchObject({
      status: 404,
      error: { _tag: "SessionNotFoundError", sessionID: "ses_missing", message: expect.any(String) },
    })
  })

  it("sends a heartbeat comment while idle", async () => {
    const server = await startTestServer({ sse: { heartbeatMs: 20 } })
    const response = await server.fetch("/api/event")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const text = await readResponseUntil(response, (t) => t.includes(": heartbeat\n\n"))
    expect(text.startsWith("data: ")).toBe(true)
    expect(JSON.parse(text.slice("data: ".length, text.indexOf("\n")))).toMatchObject({ type: "server.connected" })
    expect(text).toContain(": heartbeat\n\n")
  })

  it("drops a subscriber that falls behind with a final server.error, without slowing the server", async () => {
    // One queued event at most: the admission commit publishes two events in one burst.
    const { client } = await startTestServer({ sse: { queueLimit: 1 } })
    const sessionID = await create(client)
    const stream = await connected(client, sessionID)
    await prompt(client, sessionID, "hello")
    const rest = await until(stream.iterator, () => false)
    expect(rest).toEqual([
      {
        id: expect.any(String),
        type: "server.error",
        data: { reason: "slow-consumer", message: expect.stringContaining("behind") },
      },
    ])
    expect((await client.v2.session.wait({ sessionID })).response?.status).toBe(204)
    expect((await client.v2.session.get({ sessionID })).data!.data.status).toBe("idle")
    const again = await connected(client, sessionID)
    again.close()
  })
})

describe("the per-session durable stream (GET /api/session/:id/event)", () => {
  const seqs = (events: ReadonlyArray<SessionDurableEvent>) => events.map((e) => e.durable.seq)

  it("streams the journal after a seq without gaps, then continues live", async () => {
    const { client } = await startTestServer()
    const sessionID = await create(client)
    await prompt(client, sessionID, "/think hi\n/tool list {}")
    await client.v2.session.wait({ sessionID })
    const total = await seqOf(client, sessionID)

    const log = await sessionEvents(client, { sessionID, after: 3 })
    const iterator = log[Symbol.asyncIterator]()
    const backlog = await until(iterator, (e) => e.durable.seq === total)
    expect(seqs(backlog)).toEqual(Array.from({ length: total - 3 }, (_, i) => i + 4))
    expect(backlog.every((e) => e.durable.aggregateID === sessionID && e.data.sessionID === sessionID)).toBe(true)

    await prompt(client, sessionID, "more")
    const live = await until(iterator, turnEnded)
    log.close()
    // Durable events only: no deltas, no status, no server.connected.
    expect(live.every((e) => "durable" in e)).toBe(true)
    expect(seqs(live)).toEqual(live.map((_, i) => total + 1 + i))
  })

  it("has no gap or duplicate when events commit while the backlog is read", async () => {
    const { client } = await startTestServer()
    const sessionID = await create(client)
    await prompt(client, sessionID, "/think racing\n/tool list {}")
    const log = await sessionEvents(client, { sessionID })
    const events = await until(log[Symbol.asyncIterator](), turnEnded)
    log.close()
    expect(seqs(events)).toEqual(events.map((_, i) => i + 1))
    expect(events[0]!.type).toBe("session.next.created")
  })

  it("marks each event with its seq as the SSE id and its type as the SSE event, and honours Last-Event-ID", async () => {
    const server = await startTestServer()
    const sessionID = await create(server.client)
    await prompt(server.client, sessionID, "hello")
    await server.client.v2.session.wait({ sessionID })
    const response = await server.fetch(`/api/session/${sessionID}/event`, { headers: { "last-event-id": "2" } })
    const text = await readResponseUntil(response, (t) => t.includes("session.next.turn.ended"))
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
    expect(ids[0]).toBe(3)
    expect(ids).toEqual(ids.map((_, i) => i + 3))
    const frames = [...text.matchAll(/^event: (\S+)\ndata: (.*)$/gm)]
    expect(frames.length).toBe(ids.length)
    for (const [, name, data] of frames) expect((JSON.parse(data!) as { type: string }).type).toBe(name)
  })

  it("explains that the journal is off with a typed 409", async () => {
    const { client } = await startTestServer({ config: { events: { persist: false } } })
    const sessionID = await create(client)
    const failure = await sessionEvents(client, { sessionID }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(EventStreamError)
    expect(failure).toMatchObject({
      status: 409,
      error: { _tag: "JournalDisabledError", message: expect.stringContaining("events.persist") },
    })
  })

  it("refuses a bad position and an unknown session", async () => {
    const server = await startTestServer()
    const sessionID = await create(server.client)
    const bad = await server.fetch(`/api/session/${sessionID}/event?after=-1`)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({
      _tag: "InvalidRequestError",
      message: expect.stringContaining("after"),
      field: "after",
    })
    const failure = await sessionEvents(server.client, { sessionID: "ses_missing" }).catch((error: unknown) => error)
    expect(failure).toMatchObject({ status: 404, error: { _tag: "SessionNotFoundError", sessionID: "ses_missing" } })
  })
})
