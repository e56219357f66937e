import { EventStreamError, type OpencodeClient, type ServerEvent } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { startTestServer } from "./support/server.ts"

type Durable = Extract<ServerEvent, { seq: number }>
const isDurable = (event: ServerEvent): event is Durable => "seq" in event

/** Opens a subscription and waits for `server.connected`, so everything after is observed. */
const subscribe = async (stream: AsyncGenerator<ServerEvent, void, undefined>) => {
  const first = await stream.next()
  expect(first.value).toEqual({ type: "server.connected", data: { version: expect.any(String) } })
  return stream
}

const until = async (stream: AsyncGenerator<ServerEvent, void, undefined>, done: (event: ServerEvent) => boolean) => {
  const events: Array<ServerEvent> = []
  for (;;) {
    const next = await stream.next()
    if (next.done) return events
    events.push(next.value)
    if (done(next.value)) return events
  }
}

const turnEnded = (event: ServerEvent) => event.type === "session.turn.ended"

/** Reads a raw SSE response until `match` appears in the text. */
const readUntil = async (response: Response, match: (text: string) => boolean) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  while (!match(text)) {
    const { done, value } = await reader.read()
    if (done) break
    text += value
  }
  await reader.cancel()
  return text
}

const prompt = async (client: OpencodeClient, sessionID: string, text: string) =>
  (await client.session.prompt({ path: { sessionID }, body: { text } })).data!

describe("live events over server-sent events", () => {
  it("delivers server.connected, then a whole offline turn's durable events in seq order, with deltas", async () => {
    const { client } = await startTestServer()
    const session = (await client.session.create({ body: {} })).data!
    const controller = new AbortController()
    const stream = await subscribe(client.events({ sessionID: session.id, signal: controller.signal }))
    await prompt(client, session.id, "/think hi\n/tool list {}")
    const events = await until(stream, turnEnded)
    controller.abort()

    const durable = events.filter(isDurable)
    expect(durable.map((e) => e.seq)).toEqual(durable.map((_, i) => i + 2))
    expect(durable.every((e) => e.sessionID === session.id && e.id.startsWith("evt_") && e.version === 1)).toBe(true)
    const types = durable.map((e) => e.type)
    expect(types[0]).toBe("session.message.admitted")
    expect(types[1]).toBe("session.turn.started")
    expect(types.filter((t) => t === "session.assistant.started")).toHaveLength(2)
    expect(types.filter((t) => t === "session.assistant.completed")).toHaveLength(2)
    expect(types.at(-1)).toBe("session.turn.ended")
    const deltas = events.filter((e) => e.type === "session.part.delta")
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas.every((e) => !isDurable(e) && (e as { sessionID: string }).sessionID === session.id)).toBe(true)
    expect(deltas.some((e) => (e.data as { field: string }).field === "reasoning")).toBe(true)

    // The durable events describe what the projection now holds.
    const messages = (await client.message.list({ path: { sessionID: session.id } })).data!.items
    const last = durable.at(-1)!
    expect((await client.session.get({ path: { sessionID: session.id } })).data!.seq).toBe(last.seq)
    expect(messages.at(-1)!.seq).toBeLessThan(last.seq)
  })

  it("filters by session, and sends every session's events without a filter", async () => {
    const { client } = await startTestServer()
    const a = (await client.session.create({ body: {} })).data!
    const b = (await client.session.create({ body: {} })).data!
    const controller = new AbortController()
    const onlyA = await subscribe(client.events({ sessionID: a.id, signal: controller.signal }))
    const all = await subscribe(client.events({ signal: controller.signal }))
    await prompt(client, b.id, "for b")
    await client.session.wait({ path: { sessionID: b.id } })
    await prompt(client, a.id, "for a")
    const seenByA = await until(onlyA, turnEnded)
    const seenByAll = await until(all, (e) => turnEnded(e) && (e as Durable).sessionID === a.id)
    controller.abort()
    expect(new Set(seenByA.map((e) => (e as { sessionID: string }).sessionID))).toEqual(new Set([a.id]))
    expect(new Set(seenByAll.map((e) => (e as { sessionID: string }).sessionID))).toEqual(new Set([a.id, b.id]))
  })

  it("refuses a filter on an unknown session with a typed 404", async () => {
    const { client } = await startTestServer()
    const failure = await until(client.events({ sessionID: "ses_missing" }), () => false).catch(
      (error: unknown) => error,
    )
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
    const text = await readUntil(response, (t) => t.includes(": heartbeat\n\n"))
    expect(text.startsWith('data: {"type":"server.connected"')).toBe(true)
    expect(text).toContain(": heartbeat\n\n")
  })

  it("drops a subscriber that falls behind with a final server.error, without slowing the server", async () => {
    // One queued event at most: the admission commit publishes two events in one burst.
    const { client } = await startTestServer({ sse: { queueLimit: 1 } })
    const session = (await client.session.create({ body: {} })).data!
    const stream = await subscribe(client.events({ sessionID: session.id }))
    await prompt(client, session.id, "hello")
    const rest = await until(stream, () => false)
    expect(rest).toEqual([
      { type: "server.error", data: { reason: "slow-consumer", message: expect.stringContaining("behind") } },
    ])
    expect((await client.session.wait({ path: { sessionID: session.id } })).data!.status).toBe("idle")
    const again = await subscribe(client.events({ sessionID: session.id }))
    await again.return()
  })
})

describe("the durable session log", () => {
  const persist = { events: { persist: true } }

  it("streams the journal after a seq without gaps, then continues live", async () => {
    const { client } = await startTestServer({ config: persist })
    const sessionID = (await client.session.create({ body: {} })).data!.id
    await prompt(client, sessionID, "/think hi\n/tool list {}")
    await client.session.wait({ path: { sessionID } })
    const total = (await client.session.get({ path: { sessionID } })).data!.seq

    const controller = new AbortController()
    const log = await subscribe(client.log({ sessionID, after: 3, signal: controller.signal }))
    const backlog = await until(log, (e) => isDurable(e) && e.seq === total)
    expect(backlog.map((e) => (e as Durable).seq)).toEqual(Array.from({ length: total - 3 }, (_, i) => i + 4))
    expect(backlog.every((e) => isDurable(e) && e.sessionID === sessionID)).toBe(true)

    await prompt(client, sessionID, "more")
    const live = await until(log, turnEnded)
    controller.abort()
    expect(live.every(isDurable)).toBe(true)
    expect(live.map((e) => (e as Durable).seq)).toEqual(live.map((_, i) => total + 1 + i))
  })

  it("has no gap or duplicate when events commit while the backlog is read", async () => {
    const { client } = await startTestServer({ config: persist })
    const sessionID = (await client.session.create({ body: {} })).data!.id
    await prompt(client, sessionID, "/think racing\n/tool list {}")
    const controller = new AbortController()
    const log = await subscribe(client.log({ sessionID, signal: controller.signal }))
    const events = await until(log, turnEnded)
    controller.abort()
    expect(events.map((e) => (e as Durable).seq)).toEqual(events.map((_, i) => i + 1))
  })

  it("marks each event with its seq as the SSE id and honours Last-Event-ID", async () => {
    const server = await startTestServer({ config: persist })
    const sessionID = (await server.client.session.create({ body: {} })).data!.id
    await prompt(server.client, sessionID, "hello")
    await server.client.session.wait({ path: { sessionID } })
    const response = await server.fetch(`/api/session/${sessionID}/log`, { headers: { "last-event-id": "2" } })
    const text = await readUntil(response, (t) => t.includes("session.turn.ended"))
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
    expect(ids[0]).toBe(3)
    expect(ids).toEqual(ids.map((_, i) => i + 3))
  })

  it("explains that the journal is off with a typed 409", async () => {
    const { client } = await startTestServer()
    const sessionID = (await client.session.create({ body: {} })).data!.id
    const failure = await until(client.log({ sessionID }), () => false).catch((error: unknown) => error)
    expect(failure).toMatchObject({
      status: 409,
      error: { _tag: "JournalDisabledError", message: expect.stringContaining("events.persist") },
    })
  })

  it("refuses a bad position and an unknown session", async () => {
    const server = await startTestServer({ config: persist })
    const sessionID = (await server.client.session.create({ body: {} })).data!.id
    const bad = await server.fetch(`/api/session/${sessionID}/log?after=-1`)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({
      _tag: "InvalidRequestError",
      message: expect.stringContaining("after"),
      field: "after",
    })
    const failure = await until(server.client.log({ sessionID: "ses_missing" }), () => false).catch(
      (error: unknown) => error,
    )
    expect(failure).toMatchObject({ status: 404, error: { _tag: "SessionNotFoundError", sessionID: "ses_missing" } })
  })
})
