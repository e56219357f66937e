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
      config: { session: { queueLimit: 2 }, events: { persist: true } },
      plugins: [{ source: "inline:holder", plugin: holder }],
    })
    const sessionID = (await server.client.session.create({ body: {} })).data!.id
    await server.client.session.prompt({ path: { sessionID }, body: { text: "start" } })
    await holding
    for (const text of ["queued 1", "queued 2"]) {
      const queued = await server.client.session.prompt({ path: { sessionID }, body: { text } })
      expect(queued.response?.status).toBe(200)
    }
    const tables = tableHasher(server.database)
    const before = tables.hash()

    const prompt = await server.fetch(`/api/session/${sessionID}/prompt`, json("POST", { text: "one too many" }))
    expect(prompt.status).toBe(429)
    expect(prompt.headers.get("content-type")).toContain("application/json")
    expect(await prompt.json()).toEqual({
      _tag: "SessionQueueFullError",
      sessionID,
      limit: 2,
      message: expect.stringContaining("session.queueLimit"),
    })
    const notice = await server.client.session.synthetic({ path: { sessionID }, body: { text: "a notice too many" } })
    expect(notice.response?.status).toBe(429)
    expect(notice.error).toMatchObject({ _tag: "SessionQueueFullError", sessionID, limit: 2 })
    expect(tables.hash()).toBe(before)
    tables.close()

    release()
    await server.client.session.wait({ path: { sessionID } })
    const texts = (await server.client.message.list({ path: { sessionID } })).data!.items.flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])),
    )
    expect(texts).toEqual(expect.arrayContaining(["start", "queued 1", "queued 2"]))
    expect(texts.some((text) => text.includes("too many"))).toBe(false)
  })
})
