import type { SessionMessageAssistant, SessionMessageUser } from "@opencode-ai/sdk/v2"
import { mkdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { VERSION } from "../src/version.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { tableHasher } from "./support/table-hash.ts"
import { tempDir } from "./support/tmp.ts"
import { finishedTurn } from "./support/transcript.ts"

const missing = "ses_missing"
const notFound = { _tag: "SessionNotFoundError", sessionID: missing, message: expect.stringContaining(missing) }
const invalidCursor = { _tag: "InvalidCursorError", message: expect.stringContaining("cursor") }
const invalid = (field: string) => ({ _tag: "InvalidRequestError", message: expect.any(String), field })

/** A session with one finished offline turn. */
const withTurn = async (server: TestServer, text = "hello") => (await finishedTurn(server.api, text)).sessionID

describe("session routes over the SDK", () => {
  it("answers health with healthy and the version", async () => {
    const { api } = await startTestServer()
    const { data, error, response } = await api.health.get()
    expect(error).toBeUndefined()
    expect(response?.status).toBe(200)
    expect(data).toEqual({ healthy: true, version: VERSION })
  })

  it("creates, gets, renames, lists with a cursor and deletes sessions", async () => {
    const { api, directory } = await startTestServer()
    const first = await api.session.create({ title: "first", location: { directory } })
    expect(first.error).toBeUndefined()
    expect(first.data!.data).toMatchObject({
      id: expect.stringMatching(/^ses_/),
      title: "first",
      location: { directory: realpathSync(directory) },
      status: "idle",
      seq: 1,
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    })
    const second = (await api.session.create({ model: { providerID: "offline", id: "echo" }, agent: "build" })).data!
      .data
    expect(second).toMatchObject({ title: "New session", model: { providerID: "offline", id: "echo" }, agent: "build" })

    expect((await api.session.get({ sessionID: first.data!.data.id })).data!.data).toEqual({
      ...first.data!.data,
      context: { tokens: 0 },
    })
    const renamed = await api.session.update({ sessionID: first.data!.data.id, title: "renamed" })
    expect(renamed.data!.data).toMatchObject({ id: first.data!.data.id, title: "renamed", seq: 2 })

    // Newest first by default.
    const page1 = (await api.session.list({ limit: 1 })).data!
    expect(page1.data.map((s) => s.id)).toEqual([second.id])
    expect(page1.cursor.previous).toBeUndefined()
    const page2 = (await api.session.list({ limit: 1, cursor: page1.cursor.next! })).data!
    expect(page2.data.map((s) => s.id)).toEqual([first.data!.data.id])
    expect(page2.cursor.next).toBeUndefined()
    const back = (await api.session.list({ limit: 1, cursor: page2.cursor.previous! })).data!
    expect(back.data.map((s) => s.id)).toEqual([second.id])
    const ascending = (await api.session.list({ order: "asc" })).data!
    expect(ascending.data.map((s) => s.id)).toEqual([first.data!.data.id, second.id])
    const found = (await api.session.list({ search: "renam" })).data!
    expect(found.data.map((s) => s.id)).toEqual([first.data!.data.id])

    const deleted = await api.session.delete({ sessionID: second.id })
    expect(deleted.response?.status).toBe(204)
    expect(deleted.error).toBeUndefined()
    const gone = await api.session.get({ sessionID: second.id })
    expect(gone.response?.status).toBe(404)
    expect(gone.error).toEqual({ _tag: "SessionNotFoundError", sessionID: second.id, message: expect.any(String) })
    expect((await api.session.list()).data!.data.map((s) => s.id)).toEqual([first.data!.data.id])
  })

  it("refuses a cursor of another listing, order, filter or session, or a malformed one, with 400 InvalidCursorError", async () => {
    const server = await startTestServer()
    const { api } = server
    const one = await withTurn(server, "first session")
    const two = await withTurn(server, "second session")
    await api.session.update({ sessionID: one, title: "alpha one" })
    const root = realpathSync(tempDir())
    // A directory whose name, joined naively with a search text, would spell another filter.
    const colon = join(root, "d:")
    mkdirSync(colon)
    await api.session.create({ location: { directory: colon } })
    await api.session.create({ location: { directory: colon } })

    const list = (await api.session.list({ limit: 1 })).data!.cursor.next!
    const listAsc = (await api.session.list({ limit: 1, order: "asc" })).data!.cursor.next!
    const searched = (await api.session.list({ limit: 1, search: "" })).data!.cursor.next!
    expect(searched).toBe(list)
    const inDirectory = (await api.session.list({ limit: 1, directory: colon })).data!.cursor.next!
    const messages = (await api.session.messages({ sessionID: one, limit: 1 })).data!.cursor.next!
    const messagesDesc = (await api.session.messages({ sessionID: one, limit: 1, order: "desc" })).data!.cursor.next!
    for (const cursor of [list, listAsc, inDirectory, messages, messagesDesc])
      expect(cursor).toEqual(expect.any(String))

    const tables = tableHasher(server.database)
    const before = tables.hash()
    const refusals = [
      // session.list: another order, another filter, a message listing's cursor, malformed ones.
      await api.session.list({ limit: 1, order: "asc", cursor: list }),
      await api.session.list({ limit: 1, search: "alpha", cursor: list }),
      await api.session.list({ limit: 1, cursor: inDirectory }),
      await api.session.list({ limit: 1, directory: colon, cursor: list }),
      // The same directory's cursor with a search text that would spell it in a naive encoding.
      await api.session.list({ limit: 1, search: `:${colon.slice(0, -1)}`, cursor: inDirectory }),
      await api.session.list({ limit: 1, cursor: messages }),
      await api.session.list({ cursor: "not a cursor" }),
      await api.session.list({ cursor: Buffer.from('["sessions","desc"]').toString("base64url") }),
      await api.session.list({
        cursor: Buffer.from(
          JSON.stringify([JSON.parse(Buffer.from(list, "base64url").toString())[0], "desc", {}, "next"]),
        ).toString("base64url"),
      }),
      // session.messages: another session, another order, a session listing's cursor, malformed ones.
      await api.session.messages({ sessionID: two, cursor: messages }),
      await api.session.messages({ sessionID: one, order: "desc", cursor: messages }),
      await api.session.messages({ sessionID: one, cursor: list }),
      await api.session.messages({ sessionID: one, cursor: "%%%" }),
      await api.session.messages({ sessionID: one, cursor: Buffer.from("{}").toString("base64url") }),
    ]
    for (const [index, result] of refusals.entries()) {
      expect(result.response?.status, `case ${index}`).toBe(400)
      expect(result.error, `case ${index}`).toEqual(invalidCursor)
    }
    expect(tables.hash()).toBe(before)
    tables.close()
    // The right listing continues.
    expect((await api.session.list({ limit: 1, cursor: list })).data!.data).toHaveLength(1)
    expect((await api.session.messages({ sessionID: one, cursor: messages })).data!.data).toHaveLength(1)
    // A missing session is still a 404, cursor or not.
    const gone = await api.session.messages({ sessionID: missing, cursor: messages })
    expect(gone.error).toEqual(notFound)
  })

  it("takes a client-chosen session id once, and refuses one that exists, was used, or is not a session id", async () => {
    const server = await startTestServer()
    const { api } = server
    const chosen = await api.session.create({ id: "ses_clientChosen1", title: "mine" })
    expect(chosen.data!.data).toMatchObject({ id: "ses_clientChosen1", title: "mine" })
    const deleted = (await api.session.create({ id: "ses_clientDeleted1" })).data!.data.id
    await api.session.delete({ sessionID: deleted })

    const tables = tableHasher(server.database)
    const before = tables.hash()
    for (const id of ["ses_clientChosen1", "ses_clientDeleted1", "nope", "msg_abc", "ses_a-b", "ses_", ""]) {
      const refused = await api.session.create({ id, title: "again" })
      expect(refused.response?.status, id).toBe(400)
      expect(refused.error, id).toEqual(invalid("id"))
    }
    expect(tables.hash()).toBe(before)
    tables.close()
    expect((await api.session.get({ sessionID: "ses_clientChosen1" })).data!.data.title).toBe("mine")
  })

  it("runs a prompt to completion: prompt, wait, then the transcript", async () => {
    const { api } = await startTestServer()
    const session = (await api.session.create({})).data!.data
    const admitted = await api.session.prompt({ sessionID: session.id, prompt: { text: "hello there" } })
    expect(admitted.error).toBeUndefined()
    expect(admitted.data!.data).toEqual({
      id: expect.stringMatching(/^msg_/),
      sessionID: session.id,
      admittedSeq: 2,
      prompt: { text: "hello there" },
      delivery: "queue",
      timeCreated: expect.any(Number),
      queued: false,
    })
    const waited = await api.session.wait({ sessionID: session.id })
    expect(waited.response?.status).toBe(204)
    expect((await api.session.get({ sessionID: session.id })).data!.data.status).toBe("idle")
    const messages = (await api.session.messages({ sessionID: session.id })).data!.data
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])
    expect(messages[0]).toEqual({
      id: admitted.data!.data.id,
      sessionID: session.id,
      seq: admitted.data!.data.admittedSeq,
      origin: "user",
      type: "user",
      time: { created: admitted.data!.data.timeCreated },
      text: "hello there",
    })
    expect((messages[1] as SessionMessageAssistant).content).toEqual([
      { id: expect.stringMatching(/^prt_/), type: "text", text: "You said: hello there" },
    ])
    // What the next request is built from: the whole transcript (no compaction yet).
    expect((await api.session.context({ sessionID: session.id })).data!.data).toEqual(messages)
  })

  it("answers a repeated prompt id with the first admission and stores nothing new", async () => {
    const server = await startTestServer()
    const { api } = server
    const sessionID = (await api.session.create({})).data!.data.id
    const first = await api.session.prompt({ sessionID, id: "msg_clientPrompt1", prompt: { text: "only once" } })
    expect(first.data!.data).toMatchObject({ id: "msg_clientPrompt1", queued: false })
    await api.session.wait({ sessionID })

    const tables = tableHasher(server.database)
    const before = tables.hash()
    for (const text of ["only once", "something else"]) {
      const again = await api.session.prompt({ sessionID, id: "msg_clientPrompt1", prompt: { text } })
      expect(again.response?.status).toBe(200)
      expect(again.data).toEqual(first.data)
    }
    expect(tables.hash()).toBe(before)
    const messages = (await api.session.messages({ sessionID })).data!.data
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])

    // An id that another message has (here or in another session), or that is not a message id, is refused.
    const other = (await api.session.create({})).data!.data.id
    const afterCreate = tables.hash()
    for (const [target, id] of [
      [other, "msg_clientPrompt1"],
      [sessionID, messages[1]!.id],
      [sessionID, "prt_notAMessage"],
      [sessionID, "msg_a-b"],
    ] as const) {
      const refused = await api.session.prompt({ sessionID: target, id, prompt: { text: "hijack" } })
      expect(refused.response?.status, id).toBe(400)
      expect(refused.error, id).toEqual(invalid("id"))
    }
    expect(tables.hash()).toBe(afterCreate)
    tables.close()
    expect((await api.session.messages({ sessionID: other })).data!.data).toEqual([])
  })

  it("answers the same id sent concurrently (a client retrying at once) with the one admission", async () => {
    const RACERS = 8
    // Every racer's `prompt` hook waits until all of them got past the repeat check, so they meet in the
    // admission itself.
    let arrived = 0
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const server = await startTestServer({
      plugins: [
        {
          source: "inline:gate",
          plugin: {
            id: "gate",
            setup(ctx) {
              ctx.session.hook("prompt", async (event) => {
                if (event.text !== "race") return
                if (++arrived === RACERS) open()
                await gate
              })
            },
          },
        },
      ],
    })
    const { api } = server
    const sessionID = (await api.session.create({})).data!.data.id
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () =>
        api.session.prompt({ sessionID, id: "msg_clientRace1", prompt: { text: "race" } }),
      ),
    )
    expect(arrived).toBe(RACERS)
    expect(answers.map((answer) => answer.error)).toEqual(answers.map(() => undefined))
    expect(new Set(answers.map((answer) => JSON.stringify(answer.data))).size).toBe(1)
    expect(answers[0]!.data!.data).toMatchObject({ id: "msg_clientRace1", sessionID })
    await api.session.wait({ sessionID })
    const messages = (await api.session.messages({ sessionID })).data!.data
    expect(messages.filter((m) => m.type === "user").map((m) => m.id)).toEqual(["msg_clientRace1"])
    expect(messages.filter((m) => m.type === "assistant")).toHaveLength(1)
  })

  it("answers a repeated id of input still queued behind a running turn with that admission", async () => {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let held!: () => void
    const holding = new Promise<void>((resolve) => (held = resolve))
    const server = await startTestServer({
      plugins: [
        {
          source: "inline:holder",
          plugin: {
            id: "holder",
            setup(ctx) {
              let first = true
              ctx.session.hook("preflight", async () => {
                if (!first) return
                first = false
                held()
                await released
              })
            },
          },
        },
      ],
    })
    const { api } = server
    const sessionID = (await api.session.create({})).data!.data.id
    const busy = (await api.session.create({})).data!.data.id
    await api.session.prompt({ sessionID, prompt: { text: "start" } })
    await holding
    const queued = await api.session.prompt({ sessionID, id: "msg_clientQueued1", prompt: { text: "later" } })
    expect(queued.data!.data).toMatchObject({ id: "msg_clientQueued1", queued: true })
    const tables = tableHasher(server.database)
    const before = tables.hash()
    const again = await api.session.prompt({ sessionID, id: "msg_clientQueued1", prompt: { text: "later" } })
    expect(again.data).toEqual(queued.data)
    // The queued id is taken in every session.
    const elsewhere = await api.session.prompt({ sessionID: busy, id: "msg_clientQueued1", prompt: { text: "x" } })
    expect(elsewhere.error).toEqual(invalid("id"))
    expect(tables.hash()).toBe(before)
    tables.close()
    release()
    await api.session.wait({ sessionID })
    const texts = (await api.session.messages({ sessionID })).data!.data.flatMap((m) =>
      m.type === "user" ? [m.text] : [],
    )
    expect(texts).toEqual(["start", "later"])
  })

  it("passes the prompt's agent and model through, and switches them for later turns", async () => {
    const { api } = await startTestServer()
    const session = (await api.session.create({})).data!.data
    const admitted = (
      await api.session.prompt({
        sessionID: session.id,
        prompt: { text: "hi" },
        agent: "build",
        model: { providerID: "offline", id: "echo" },
      })
    ).data!.data
    await api.session.wait({ sessionID: session.id })
    const user = (await api.session.message({ sessionID: session.id, messageID: admitted.id })).data!.data
    expect(user).toMatchObject({ type: "user", agent: "build", model: { providerID: "offline", id: "echo" } })
    expect((user as SessionMessageUser).text).toBe("hi")

    expect((await api.session.switchAgent({ sessionID: session.id, agent: "build" })).response?.status).toBe(204)
    const model = { providerID: "offline", id: "echo" }
    expect((await api.session.switchModel({ sessionID: session.id, model })).response?.status).toBe(204)
    const tail = (await api.session.messages({ sessionID: session.id })).data!.data.slice(-2)
    expect(tail).toMatchObject([
      { type: "agent-switched", agent: "build" },
      { type: "model-switched", model },
    ])
    expect((await api.session.get({ sessionID: session.id })).data!.data).toMatchObject({ agent: "build", model })
    const unknown = await api.session.switchAgent({ sessionID: session.id, agent: "ghost" })
    expect(unknown.error).toEqual(invalid("agent"))
  })

  it("admits a synthetic notice with origin host, waking the session unless resume is false", async () => {
    const { api } = await startTestServer()
    const session = (await api.session.create({})).data!.data
    const quiet = await api.session.synthetic({
      sessionID: session.id,
      text: "a quiet notice",
      description: "note",
      resume: false,
    })
    expect(quiet.data!.data).toMatchObject({ id: expect.stringMatching(/^msg_/), queued: false })
    await api.session.wait({ sessionID: session.id })
    let items = (await api.session.messages({ sessionID: session.id })).data!.data
    expect(items).toEqual([
      expect.objectContaining({
        id: quiet.data!.data.id,
        type: "synthetic",
        origin: "host",
        text: "a quiet notice",
        description: "note",
      }),
    ])

    await api.session.synthetic({ sessionID: session.id, text: "wake up" })
    await api.session.wait({ sessionID: session.id })
    items = (await api.session.messages({ sessionID: session.id })).data!.data
    expect(items.map((m) => m.type)).toEqual(["synthetic", "synthetic", "assistant"])
  })

  it("interrupts, resumes and waits on an idle session", async () => {
    const { api } = await startTestServer()
    const session = (await api.session.create({})).data!.data
    const interrupted = await api.session.interrupt({ sessionID: session.id })
    expect(interrupted.response?.status).toBe(204)
    const resumed = await api.session.resume({ sessionID: session.id })
    expect(resumed.data).toEqual({ data: { resumed: true } })
    expect((await api.session.wait({ sessionID: session.id })).response?.status).toBe(204)
    expect((await api.session.get({ sessionID: session.id })).data!.data.status).toBe("idle")
    expect((await api.session.active()).data).toEqual({ data: {} })
  })

  it("answers 404 SessionNotFoundError on every session route for an unknown id", async () => {
    const { api } = await startTestServer()
    const sessionID = missing
    const results = await Promise.all([
      api.session.get({ sessionID }),
      api.session.update({ sessionID, title: "x" }),
      api.session.delete({ sessionID }),
      api.session.prompt({ sessionID, prompt: { text: "hi" } }),
      api.session.synthetic({ sessionID, text: "hi" }),
      api.session.interrupt({ sessionID }),
      api.session.wait({ sessionID }),
      api.session.resume({ sessionID }),
      api.session.compact({ sessionID }),
      api.session.context({ sessionID }),
      api.session.history({ sessionID }),
      api.session.switchAgent({ sessionID, agent: "build" }),
      api.session.switchModel({ sessionID, model: { providerID: "offline", id: "echo" } }),
      api.session.prune({ sessionID }),
      api.session.erase({ sessionID }),
      api.session.messages({ sessionID }),
      api.session.message({ sessionID, messageID: "msg_x" }),
      api.session.correct({ sessionID, messageID: "msg_x", text: "x" }),
      api.session.retract({ sessionID, messageID: "msg_x" }),
      api.session.removeItem({ sessionID, messageID: "msg_x", itemID: "prt_x" }),
      api.session.permission.list({ sessionID }),
      api.session.permission.get({ sessionID, requestID: "per_x" }),
      api.session.permission.reply({ sessionID, requestID: "per_x", reply: "once" }),
    ])
    for (const [index, result] of results.entries()) {
      expect(result.response?.status, `case ${index}`).toBe(404)
      expect(result.data, `case ${index}`).toBeUndefined()
      expect(result.error, `case ${index}`).toEqual(notFound)
    }
  })

  it("lists plugins with their status, including failed ones", async () => {
    const { api } = await startTestServer({
      config: { plugin: ["./does-not-exist.ts"] },
      plugins: [{ source: "inline:hello", plugin: { id: "hello", setup: () => {} } }],
    })
    const { data } = await api.plugin.list()
    expect(data!.data).toEqual([
      { source: "./does-not-exist.ts", status: "failed", error: expect.stringContaining("does-not-exist") },
      { id: "hello", source: "inline:hello", status: "loaded", flavour: "promise" },
    ])
  })
})
