/**
 * A full inbox over HTTP: with `session.queueLimit` inputs waiting behind the running turn, one more
 * prompt or notice answers 429 `SessionQueueFullError` naming the session and the limit, through the SDK
 * too, and nothing is stored. Real server on loopback, real database file; a plugin holds the first turn.
 */
import type { PromisePlugin } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import { json, startTestServer } from "./support/server.ts"
import { tableHasher } from "./support/table-hash.ts"

describe("the inbox bound over HTTP", () => {
  it("answers 429 SessionQueueFullError past session.queueLimit and stores nothing", async () => {
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let held!: () => void
    const holding = new Promise<void>((resolve) => (held = resolve))
    const holder: PromisePlugin = {
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
    }
    const server = await startTestServer({
      config: { session: { queueLimit: 2 } },
      plugins: [{ source: "inline:holder", plugin: holder }],
    })
    const { api } = server
    const sessionID = (await api.session.create({})).data!.data.id
    await api.session.prompt({ sessionID, prompt: { text: "start" } })
    await holding
    const queued = await api.session.prompt({ sessionID, prompt: { text: "queued 1" } })
    expect(queued.response?.status).toBe(200)
    expect(queued.data!.data.queued).toBe(true)
    const notice = await api.session.synthetic({ sessionID, text: "queued 2" })
    expect(notice.response?.status).toBe(200)
    expect(notice.data!.data.queued).toBe(true)
    const tables = tableHasher(server.database)
    const before = tables.hash()

    const prompt = await server.fetch(
      `/api/session/${sessionID}/prompt`,
      json("POST", { prompt: { text: "one too many" } }),
    )
    expect(prompt.status).toBe(429)
    expect(prompt.headers.get("content-type")).toContain("application/json")
    expect(await prompt.json()).toEqual({
      _tag: "SessionQueueFullError",
      sessionID,
      limit: 2,
      message: expect.stringContaining("session.queueLimit"),
    })
    const tooMany = await api.session.synthetic({ sessionID, text: "a notice too many" })
    expect(tooMany.response?.status).toBe(429)
    expect(tooMany.error).toMatchObject({ _tag: "SessionQueueFullError", sessionID, limit: 2 })
    // A repeated prompt id is not a new admission, so the full queue does not refuse it.
    const repeated = await api.session.prompt({ sessionID, id: queued.data!.data.id, prompt: { text: "queued 1" } })
    expect(repeated.response?.status).toBe(200)
    expect(repeated.data!.data).toEqual(queued.data!.data)
    expect(tables.hash()).toBe(before)
    tables.close()

    release()
    await api.session.wait({ sessionID })
    const texts = (await api.session.messages({ sessionID })).data!.data.flatMap((message) =>
      message.type === "user" || message.type === "synthetic" ? [message.text] : [],
    )
    expect(texts).toEqual(["start", "queued 1", "queued 2"])
  })
})
