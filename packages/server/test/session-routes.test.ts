import { describe, expect, it } from "vitest"
import { VERSION } from "../src/version.ts"
import { startTestServer } from "./support/server.ts"

const missing = "ses_missing"
const notFound = { _tag: "SessionNotFoundError", sessionID: missing, message: expect.stringContaining(missing) }

describe("session routes over the SDK", () => {
  it("answers health with ok and the version", async () => {
    const { client } = await startTestServer()
    const { data, error, response } = await client.health()
    expect(error).toBeUndefined()
    expect(response?.status).toBe(200)
    expect(data).toEqual({ ok: true, version: VERSION })
  })

  it("creates, gets, renames, lists with a cursor and deletes sessions", async () => {
    const { client, directory } = await startTestServer()
    const first = await client.session.create({ body: { title: "first", directory } })
    expect(first.error).toBeUndefined()
    expect(first.data).toMatchObject({
      id: expect.stringMatching(/^ses_/),
      title: "first",
      directory,
      status: "idle",
      seq: 1,
    })
    const second = (await client.session.create({ body: { model: "offline/echo", agent: "build" } })).data!
    expect(second).toMatchObject({ title: "New session", model: "offline/echo", agent: "build" })

    expect((await client.session.get({ path: { sessionID: first.data!.id } })).data).toEqual({
      ...first.data,
      tokens: { context: 0 },
    })
    const renamed = await client.session.update({ path: { sessionID: first.data!.id }, body: { title: "renamed" } })
    expect(renamed.data).toMatchObject({ id: first.data!.id, title: "renamed" })

    const page1 = (await client.session.list({ query: { limit: 1 } })).data!
    expect(page1.items.map((s) => s.id)).toEqual([second.id])
    expect(page1.cursor).toBe(second.id)
    const page2 = (await client.session.list({ query: { limit: 1, cursor: page1.cursor! } })).data!
    expect(page2.items.map((s) => s.id)).toEqual([first.data!.id])
    expect(page2.cursor).toBeUndefined()

    const deleted = await client.session.delete({ path: { sessionID: second.id } })
    expect(deleted.response?.status).toBe(204)
    expect(deleted.error).toBeUndefined()
    const gone = await client.session.get({ path: { sessionID: second.id } })
    expect(gone.response?.status).toBe(404)
    expect(gone.error).toEqual({ _tag: "SessionNotFoundError", sessionID: second.id, message: expect.any(String) })
  })

  it("runs a prompt to completion: prompt, wait, then the transcript", async () => {
    const { client } = await startTestServer()
    const session = (await client.session.create({ body: {} })).data!
    const admitted = await client.session.prompt({ path: { sessionID: session.id }, body: { text: "hello there" } })
    expect(admitted.error).toBeUndefined()
    expect(admitted.data).toEqual({ messageID: expect.stringMatching(/^msg_/) })
    const waited = await client.session.wait({ path: { sessionID: session.id } })
    expect(waited.data).toMatchObject({ id: session.id, status: "idle" })
    const messages = (await client.message.list({ path: { sessionID: session.id } })).data!.items
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])
    expect(messages[0]).toMatchObject({
      id: admitted.data!.messageID,
      origin: "user",
      parts: [{ type: "text", text: "hello there" }],
    })
    expect(messages[1]!.parts).toEqual([
      { id: expect.stringMatching(/^prt_/), type: "text", text: "You said: hello there" },
    ])
  })

  it("passes the prompt's agent and model through", async () => {
    const { client } = await startTestServer()
    const session = (await client.session.create({ body: {} })).data!
    const admitted = (
      await client.session.prompt({
        path: { sessionID: session.id },
        body: { text: "hi", agent: "build", model: "offline/echo" },
      })
    ).data!
    await client.session.wait({ path: { sessionID: session.id } })
    const user = (await client.message.get({ path: { sessionID: session.id, messageID: admitted.messageID } })).data!
    expect(user).toMatchObject({ type: "user", agent: "build", model: { providerID: "offline", modelID: "echo" } })
  })

  it("admits a synthetic notice with origin host, waking the session unless resume is false", async () => {
    const { client } = await startTestServer()
    const session = (await client.session.create({ body: {} })).data!
    const quiet = await client.session.synthetic({
      path: { sessionID: session.id },
      body: { text: "a quiet notice", description: "note", resume: false },
    })
    expect(quiet.data).toEqual({ messageID: expect.stringMatching(/^msg_/) })
    await client.session.wait({ path: { sessionID: session.id } })
    let items = (await client.message.list({ path: { sessionID: session.id } })).data!.items
    expect(items).toEqual([
      expect.objectContaining({ id: quiet.data!.messageID, type: "synthetic", origin: "host", description: "note" }),
    ])

    await client.session.synthetic({ path: { sessionID: session.id }, body: { text: "wake up" } })
    await client.session.wait({ path: { sessionID: session.id } })
    items = (await client.message.list({ path: { sessionID: session.id } })).data!.items
    expect(items.map((m) => m.type)).toEqual(["synthetic", "synthetic", "assistant"])
  })

  it("interrupts, resumes and waits on an idle session", async () => {
    const { client } = await startTestServer()
    const session = (await client.session.create({ body: {} })).data!
    const interrupted = await client.session.interrupt({ path: { sessionID: session.id } })
    expect(interrupted.response?.status).toBe(204)
    const resumed = await client.session.resume({ path: { sessionID: session.id } })
    expect(resumed.data).toEqual({ resumed: true })
    expect((await client.session.wait({ path: { sessionID: session.id } })).data!.status).toBe("idle")
  })

  it("answers 404 SessionNotFoundError on every session route for an unknown id", async () => {
    const { client } = await startTestServer()
    const path = { sessionID: missing }
    const results = await Promise.all([
      client.session.get({ path }),
      client.session.update({ path, body: { title: "x" } }),
      client.session.delete({ path }),
      client.session.prompt({ path, body: { text: "hi" } }),
      client.session.synthetic({ path, body: { text: "hi" } }),
      client.session.interrupt({ path }),
      client.session.wait({ path }),
      client.session.resume({ path }),
      client.message.list({ path }),
      client.message.get({ path: { ...path, messageID: "msg_x" } }),
    ])
    for (const result of results) {
      expect(result.response?.status).toBe(404)
      expect(result.data).toBeUndefined()
      expect(result.error).toEqual(notFound)
    }
  })

  it("lists plugins with their status, including failed ones", async () => {
    const { client } = await startTestServer({
      config: { plugin: ["./does-not-exist.ts"] },
      plugins: [{ source: "inline:hello", plugin: { id: "hello", setup: () => {} } }],
    })
    const { data } = await client.plugin.list()
    expect(data).toEqual([
      { source: "./does-not-exist.ts", status: "failed", error: expect.stringContaining("does-not-exist") },
      { id: "hello", source: "inline:hello", status: "loaded", flavour: "promise" },
    ])
  })
})
