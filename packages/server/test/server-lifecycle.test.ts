import { createOpencodeClient, subscribe } from "@opencode-ai/sdk/v2"
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
    const session = (await client.v2.session.create({ title: "kept" })).data!.data
    await client.v2.session.prompt({ sessionID: session.id, prompt: { text: "hello" } })
    await client.v2.session.wait({ sessionID: session.id })

    const stream = (await subscribe(client))[Symbol.asyncIterator]()
    expect((await stream.next()).value).toMatchObject({ type: "server.connected" })
    const ended = stream.next()
    await first.stop()
    expect(await ended).toEqual({ done: true, value: undefined })
    await first.stop() // idempotent
    await expect(fetch(`${first.url}/api/health`)).rejects.toThrow()

    const second = await startServer({ port: 0, database, config })
    try {
      const again = createOpencodeClient({ baseUrl: second.url }).v2
      expect((await again.session.get({ sessionID: session.id })).data!.data).toMatchObject({
        title: "kept",
        status: "idle",
      })
      expect((await again.session.messages({ sessionID: session.id })).data!.data).toHaveLength(2)
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
      const client = createOpencodeClient({ baseUrl: first.url }).v2
      const sessionID = (await client.session.create()).data!.data.id
      model.enqueue({ text: "interrupted by the stop", hold: true }, { text: "resumed answer" })
      await client.session.prompt({ sessionID, prompt: { text: "long task" } })
      await model.held()
      const waiting = client.session.wait({ sessionID }).catch((error: unknown) => error)
      await first.stop()
      await waiting

      const second = await startServer({ port: 0, database, config })
      try {
        const again = createOpencodeClient({ baseUrl: second.url }).v2
        expect((await again.session.wait({ sessionID })).response?.status).toBe(204)
        expect((await again.session.get({ sessionID })).data!.data.status).toBe("idle")
        const items = (await again.session.messages({ sessionID })).data!.data
        expect(items.map((m) => m.type)).toContain("synthetic")
        const last = items.at(-1)!
        expect(last.type === "assistant" ? last.content.at(-1) : last).toMatchObject({
          type: "text",
          text: "resumed answer",
        })
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
