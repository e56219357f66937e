import type { AssistantMessage, Message, OpencodeClient } from "@opencode-ai/sdk"
import { Database } from "bun:sqlite"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { json, startTestServer } from "./support/server.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"

/** A session with one offline turn: user prompt, assistant (reasoning + tool), assistant (final text). */
const withTurn = async (client: OpencodeClient) => {
  const session = (await client.session.create({ body: {} })).data!
  await client.session.prompt({
    path: { sessionID: session.id },
    body: { text: "/think a secret plan\n/tool list {}" },
  })
  await client.session.wait({ path: { sessionID: session.id } })
  const items = (await client.message.list({ path: { sessionID: session.id } })).data!.items
  const [user, first, second] = items as [Message, AssistantMessage, AssistantMessage]
  return { sessionID: session.id, user, first, second }
}

const notFound = (sessionID: string) => ({
  _tag: "SessionNotFoundError",
  sessionID,
  message: expect.stringContaining(sessionID),
})

describe("storage routes over the SDK", () => {
  it("prunes tool and reasoning parts by default, keeping prompts and final text", async () => {
    const { client } = await startTestServer()
    const { sessionID, user, first, second } = await withTurn(client)
    const pruned = await client.session.prune({ path: { sessionID }, body: {} })
    expect(pruned.error).toBeUndefined()
    expect(pruned.data).toEqual({ sessionID, messages: 1, parts: 2, bytes: expect.any(Number) })
    expect(pruned.data!.bytes).toBeGreaterThan(0)
    const items = (await client.message.list({ path: { sessionID } })).data!.items
    expect(items).toEqual([user, { ...first, parts: [], removedParts: first.parts.map((p) => p.id) }, second])
    // Nothing left to prune: an empty summary, not an error.
    expect((await client.session.prune({ path: { sessionID }, body: {} })).data).toEqual({
      sessionID,
      messages: 0,
      parts: 0,
      bytes: 0,
    })
  })

  it("prunes only the requested part types", async () => {
    const { client } = await startTestServer()
    const { sessionID, first } = await withTurn(client)
    const pruned = await client.session.prune({ path: { sessionID }, body: { types: ["reasoning"] } })
    expect(pruned.data).toMatchObject({ sessionID, messages: 1, parts: 1 })
    const after = (await client.message.get({ path: { sessionID, messageID: first.id } })).data!
    expect(after.parts.map((p) => p.type)).toEqual(["tool"])
  })

  it("answers 400 InvalidRequestError for an empty or unknown types list and a body that is not an object", async () => {
    const server = await startTestServer()
    const { sessionID } = await withTurn(server.client)
    const empty = await server.client.session.prune({ path: { sessionID }, body: { types: [] } })
    expect(empty.response?.status).toBe(400)
    expect(empty.error).toEqual({
      _tag: "InvalidRequestError",
      field: "types",
      message: expect.stringContaining("types"),
    })
    for (const body of [{ types: ["text"] }, { types: "tool" }, []]) {
      const response = await server.fetch(`/api/session/${sessionID}/prune`, json("POST", body))
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(await response.json()).toMatchObject({ _tag: "InvalidRequestError", message: expect.any(String) })
    }
    // Nothing was removed.
    const items = (await server.client.message.list({ path: { sessionID } })).data!.items
    expect(items[1]!.parts.map((p) => p.type)).toEqual(["reasoning", "tool"])
  })

  it("answers 404 SessionNotFoundError for prune, erase and stats of an unknown session", async () => {
    const { client } = await startTestServer()
    const path = { sessionID: "ses_missing" }
    const results = [
      await client.session.prune({ path, body: {} }),
      await client.session.erase({ path }),
      await client.db.stats({ query: { sessionID: "ses_missing" } }),
    ]
    for (const result of results) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual(notFound("ses_missing"))
    }
  })

  it("refuses prune with 409 SessionBusyError while a turn runs, changing nothing, and prunes after", async () => {
    const model = await startOpenAIServer()
    try {
      const { client } = await startTestServer({
        config: localProviderConfig(model.url),
      })
      const sessionID = (await client.session.create({ body: {} })).data!.id
      model.enqueue({ reasoning: "thinking it over", text: "first answer" })
      await client.session.prompt({ path: { sessionID }, body: { text: "first" } })
      await client.session.wait({ path: { sessionID } })
      const before = (await client.message.list({ path: { sessionID } })).data!.items

      model.enqueue({ text: "held answer", hold: true })
      await client.session.prompt({ path: { sessionID }, body: { text: "second" } })
      await model.held()
      const busy = await client.session.prune({ path: { sessionID }, body: {} })
      expect(busy.response?.status).toBe(409)
      expect(busy.error).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
      const during = (await client.message.list({ path: { sessionID } })).data!.items
      expect(during.slice(0, before.length)).toEqual(before)

      model.release()
      await client.session.wait({ path: { sessionID } })
      const pruned = await client.session.prune({ path: { sessionID }, body: { types: ["reasoning"] } })
      expect(pruned.data).toMatchObject({ sessionID, messages: 1, parts: 1 })
    } finally {
      await model.close()
    }
  })

  it("reports database stats for all sessions or one, and the bytes prune frees", async () => {
    const { client, database } = await startTestServer()
    const a = await withTurn(client)
    const b = await withTurn(client)
    const all = (await client.db.stats()).data!
    expect(all.path).toBe(database)
    expect(all.files.database).toBeGreaterThan(0)
    expect(all.pages.size).toBeGreaterThan(0)
    expect(all.sessions.map((s) => s.sessionID).sort()).toEqual([a.sessionID, b.sessionID].sort())
    const one = (await client.db.stats({ query: { sessionID: a.sessionID } })).data!
    expect(one.sessions).toEqual([
      {
        sessionID: a.sessionID,
        title: "New session",
        messages: 3,
        bytes: expect.any(Number),
        parts: { text: expect.any(Number), reasoning: expect.any(Number), tool: expect.any(Number) },
        journal: 0,
      },
    ])
    const [entry] = one.sessions
    expect(entry!.parts.reasoning).toBeGreaterThan(0)
    expect(entry!.parts.tool).toBeGreaterThan(0)

    const pruned = (await client.session.prune({ path: { sessionID: a.sessionID }, body: {} })).data!
    expect(pruned.bytes).toBe(entry!.parts.reasoning + entry!.parts.tool)
    const after = (await client.db.stats({ query: { sessionID: a.sessionID } })).data!.sessions[0]!
    expect(after.parts).toEqual({ text: entry!.parts.text, reasoning: 0, tool: 0 })
    expect(after.bytes).toBeLessThan(entry!.bytes)
  })

  it("erases superseded content from the journal and records who asked", async () => {
    const { client, database } = await startTestServer({ config: { events: { persist: true } } })
    const { sessionID, user } = await withTurn(client)
    await client.message.update({
      path: { sessionID, messageID: user.id, partID: user.parts[0]!.id },
      body: { text: "a harmless prompt" },
    })
    await client.session.prune({ path: { sessionID }, body: {} })
    const journal = () => {
      const db = new Database(database, { readonly: true })
      try {
        return db
          .query<{ type: string; data: string }, [string]>(
            "SELECT type, data FROM event WHERE aggregate_id = ? ORDER BY seq",
          )
          .all(sessionID)
      } finally {
        db.close()
      }
    }
    const before = journal()
    expect(before.some((row) => row.data.includes("secret plan"))).toBe(true)

    const erased = await client.session.erase({ path: { sessionID } })
    expect(erased.error).toBeUndefined()
    expect(erased.data).toEqual({
      sessionID,
      events: expect.any(Number),
      fields: expect.any(Number),
      bytes: expect.any(Number),
    })
    expect(erased.data!.events).toBeGreaterThan(0)
    expect(erased.data!.fields).toBeGreaterThan(0)
    expect(erased.data!.bytes).toBeGreaterThan("a secret plan".length)

    const after = journal()
    expect(after.map((row) => row.type)).toEqual([...before.map((row) => row.type), "session.erased"])
    expect(after.some((row) => row.data.includes("secret plan"))).toBe(false)
    expect(JSON.parse(after.at(-1)!.data)).toMatchObject({ by: "user", events: erased.data!.events })
    // What is still visible stays, and the stats count the new event.
    expect((await client.message.get({ path: { sessionID, messageID: user.id } })).data!.parts[0]).toMatchObject({
      text: "a harmless prompt",
    })
    expect((await client.db.stats({ query: { sessionID } })).data!.journal.events).toBe(after.length)
    // Erasing again finds nothing more to erase.
    expect((await client.session.erase({ path: { sessionID } })).data).toMatchObject({ events: 0, fields: 0, bytes: 0 })
  })
})
