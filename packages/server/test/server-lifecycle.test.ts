import { createOpencodeClient } from "@opencode-ai/sdk"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { startServer } from "../src/server.ts"
import { tempDir } from "./support/tmp.ts"

describe("server lifecycle", () => {
  it("stop ends open event streams, disposes the host and frees the database for the next server", async () => {
    const directory = tempDir()
    const database = join(directory, "opencode.db")
    const config = { data: {}, directory }
    const first = await startServer({ port: 0, database, config })
    expect(first.url).toBe(`http://127.0.0.1:${first.port}`)
    const client = createOpencodeClient({ baseUrl: first.url })
    const session = (await client.session.create({ body: { title: "kept" } })).data!
    await client.session.prompt({ path: { sessionID: session.id }, body: { text: "hello" } })
    await client.session.wait({ path: { sessionID: session.id } })

    const stream = client.events()
    expect((await stream.next()).value).toMatchObject({ type: "server.connected" })
    const ended = stream.next()
    await first.stop()
    expect(await ended).toEqual({ done: true, value: undefined })
    await first.stop() // idempotent
    await expect(fetch(`${first.url}/api/health`)).rejects.toThrow()

    const second = await startServer({ port: 0, database, config })
    try {
      const again = createOpencodeClient({ baseUrl: second.url })
      expect((await again.session.get({ path: { sessionID: session.id } })).data).toMatchObject({
        title: "kept",
        status: "idle",
      })
      expect((await again.message.list({ path: { sessionID: session.id } })).data!.items).toHaveLength(2)
    } finally {
      await second.stop()
    }
  })

  it("rejects start-up when the database cannot be opened", async () => {
    const directory = tempDir()
    // A directory where the database file should be cannot be opened as SQLite.
    await expect(startServer({ port: 0, database: directory, config: { data: {}, directory } })).rejects.toBeDefined()
  })

  it("stops while a turn runs and a request waits on it; the next start resumes the turn", async () => {
    const model = await startOpenAIServer()
    try {
      const directory = tempDir()
      const database = join(directory, "opencode.db")
      const config = {
        data: {
          model: "local/test-model",
          provider: { local: { type: "openai-compatible" as const, baseURL: model.url, models: { "test-model": {} } } },
        },
        directory,
      }
      const first = await startServer({ port: 0, database, config, stopGraceMs: 50 })
      const client = createOpencodeClient({ baseUrl: first.url })
      const sessionID = (await client.session.create({ body: {} })).data!.id
      model.enqueue({ text: "interrupted by the stop", hold: true }, { text: "resumed answer" })
      await client.session.prompt({ path: { sessionID }, body: { text: "long task" } })
      await model.held()
      const waiting = client.session.wait({ path: { sessionID } }).catch((error: unknown) => error)
      await first.stop()
      await waiting

      const second = await startServer({ port: 0, database, config })
      try {
        const again = createOpencodeClient({ baseUrl: second.url })
        const after = (await again.session.wait({ path: { sessionID } })).data!
        expect(after.status).toBe("idle")
        const items = (await again.message.list({ path: { sessionID } })).data!.items
        expect(items.map((m) => m.type)).toContain("synthetic")
        expect(items.at(-1)!.parts.at(-1)).toMatchObject({ type: "text", text: "resumed answer" })
      } finally {
        await second.stop()
      }
    } finally {
      await model.close()
    }
  })

  it("reports a busy port as a start-up failure", async () => {
    const directory = tempDir()
    const first = await startServer({ port: 0, database: join(directory, "a.db"), config: { data: {}, directory } })
    try {
      await expect(
        startServer({ port: first.port, database: join(directory, "b.db"), config: { data: {}, directory } }),
      ).rejects.toBeDefined()
    } finally {
      await first.stop()
    }
  })
})
