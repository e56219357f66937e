import type {
  OpencodeClient,
  SessionMessageAssistant,
  SessionMessageAssistantTool,
  SessionMessageUser,
} from "@opencode-ai/sdk/v2"
import { Database } from "bun:sqlite"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { json, startTestServer } from "./support/server.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { tableHasher } from "./support/table-hash.ts"
import { finishedTurn, messagesOf } from "./support/transcript.ts"

type Api = OpencodeClient["v2"]

/** A session with one offline turn: user prompt, assistant (reasoning + tool), assistant (final text). */
const withTurn = async (api: Api) => {
  const { sessionID } = await finishedTurn(api, "/think a secret plan\n/tool list {}")
  const items = await messagesOf(api, sessionID)
  const [user, first, second] = items as [SessionMessageUser, SessionMessageAssistant, SessionMessageAssistant]
  return { sessionID, user, first, second }
}

const notFound = (sessionID: string) => ({
  _tag: "SessionNotFoundError",
  sessionID,
  message: expect.stringContaining(sessionID),
})

describe("storage routes over the SDK", () => {
  it("prunes tool calls and removes reasoning items by default, keeping prompts and final text", async () => {
    const { api } = await startTestServer()
    const { sessionID, user, first, second } = await withTurn(api)
    const [reasoning, tool] = first.content as [SessionMessageAssistant["content"][number], SessionMessageAssistantTool]
    expect([reasoning.type, tool.type]).toEqual(["reasoning", "tool"])
    // A pruned call keeps its id, name and status; its input, output and title leave.
    const { title: _, ...untitled } = tool
    const pruned = await api.session.prune({ sessionID })
    expect(pruned.error).toBeUndefined()
    expect(pruned.data!.data).toEqual({ sessionID, messages: 1, items: 2, bytes: expect.any(Number) })
    expect(pruned.data!.data.bytes).toBeGreaterThan(0)
    const items = await messagesOf(api, sessionID)
    expect(items).toEqual([
      user,
      {
        ...first,
        content: [
          {
            ...untitled,
            state: { status: "completed", input: {}, content: [], structured: {} },
            time: { ...tool.time, pruned: expect.any(Number) },
            prunedBy: "user",
          },
        ],
        removed: [reasoning.id],
      },
      second,
    ])
    expect(JSON.stringify(items[1])).not.toContain("secret plan")
    expect(JSON.stringify(items[1])).not.toContain("opencode.db")
    // Nothing left to prune: an empty summary, not an error.
    expect((await api.session.prune({ sessionID })).data!.data).toEqual({ sessionID, messages: 0, items: 0, bytes: 0 })
  })

  it("prunes only the requested item types", async () => {
    const { api } = await startTestServer()
    const { sessionID, first } = await withTurn(api)
    const pruned = await api.session.prune({ sessionID, types: ["reasoning"] })
    expect(pruned.data!.data).toMatchObject({ sessionID, messages: 1, items: 1 })
    const after = (await api.session.message({ sessionID, messageID: first.id })).data!.data as SessionMessageAssistant
    expect(after.content).toEqual([first.content[1]])
    const tools = await api.session.prune({ sessionID, types: ["tool"] })
    expect(tools.data!.data).toMatchObject({ sessionID, messages: 1, items: 1 })
    const last = (await api.session.message({ sessionID, messageID: first.id })).data!.data as SessionMessageAssistant
    expect(last.content).toMatchObject([{ type: "tool", prunedBy: "user", time: { pruned: expect.any(Number) } }])
  })

  it("answers 400 InvalidRequestError for an empty or unknown types list and a body that is not an object", async () => {
    const server = await startTestServer()
    const { sessionID, first } = await withTurn(server.api)
    const tables = tableHasher(server.database)
    const before = tables.hash()
    const empty = await server.api.session.prune({ sessionID, types: [] })
    expect(empty.response?.status).toBe(400)
    expect(empty.error).toEqual({
      _tag: "InvalidRequestError",
      field: "types",
      message: expect.stringContaining("types"),
    })
    for (const body of [{ types: ["text"] }, { types: "tool" }, [], "tool", 3]) {
      const response = await server.fetch(`/api/session/${sessionID}/prune`, json("POST", JSON.stringify(body)))
      expect(response.status, JSON.stringify(body)).toBe(400)
      expect(await response.json()).toMatchObject({ _tag: "InvalidRequestError", message: expect.any(String) })
    }
    // Nothing was removed.
    expect(tables.hash()).toBe(before)
    tables.close()
    const items = await messagesOf(server.api, sessionID)
    expect(items[1]).toEqual(first)
  })

  it("answers 404 SessionNotFoundError for prune, erase and stats of an unknown session", async () => {
    const { api } = await startTestServer()
    const sessionID = "ses_missing"
    const results = [
      await api.session.prune({ sessionID }),
      await api.session.erase({ sessionID }),
      await api.storage.stats({ sessionID }),
    ]
    for (const result of results) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual(notFound(sessionID))
    }
  })

  it("refuses prune with 409 SessionBusyError while a turn runs, changing nothing, and prunes after", async () => {
    const model = await startOpenAIServer()
    try {
      const { api } = await startTestServer({
        config: localProviderConfig(model.url),
      })
      const sessionID = (await api.session.create({})).data!.data.id
      model.enqueue({ reasoning: "thinking it over", text: "first answer" })
      await api.session.prompt({ sessionID, prompt: { text: "first" } })
      await api.session.wait({ sessionID })
      const before = await messagesOf(api, sessionID)

      model.enqueue({ text: "held answer", hold: true })
      await api.session.prompt({ sessionID, prompt: { text: "second" } })
      await model.held()
      const busy = await api.session.prune({ sessionID })
      expect(busy.response?.status).toBe(409)
      expect(busy.error).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
      const during = await messagesOf(api, sessionID)
      expect(during.slice(0, before.length)).toEqual(before)

      model.release()
      await api.session.wait({ sessionID })
      const pruned = await api.session.prune({ sessionID, types: ["reasoning"] })
      expect(pruned.data!.data).toMatchObject({ sessionID, messages: 1, items: 1 })
    } finally {
      await model.close()
    }
  })

  it("reports database stats for all sessions or one, and the bytes prune takes out", async () => {
    const { api, database } = await startTestServer()
    const a = await withTurn(api)
    const b = await withTurn(api)
    const all = (await api.storage.stats()).data!.data
    expect(all.path).toBe(database)
    expect(all.files.database).toBeGreaterThan(0)
    expect(all.pages.size).toBeGreaterThan(0)
    expect(all.journal.events).toBeGreaterThan(0)
    expect(all.sessions.map((s) => s.sessionID).sort()).toEqual([a.sessionID, b.sessionID].sort())
    const one = (await api.storage.stats({ sessionID: a.sessionID })).data!.data
    expect(one.sessions).toEqual([
      {
        sessionID: a.sessionID,
        title: "New session",
        messages: 3,
        bytes: expect.any(Number),
        items: { text: expect.any(Number), reasoning: expect.any(Number), tool: expect.any(Number) },
        journal: expect.any(Number),
      },
    ])
    const [entry] = one.sessions
    expect(entry!.items.reasoning).toBeGreaterThan(0)
    expect(entry!.items.tool).toBeGreaterThan(0)
    expect(entry!.journal).toBeGreaterThan(0)
    // Both sessions' items add up to the database's.
    for (const type of ["text", "reasoning", "tool"] as const)
      expect(all.items[type]).toBe(all.sessions.reduce((sum, s) => sum + s.items[type], 0))

    // `bytes` is the JSON of the items taken out: all of the reasoning, the pruned call's former self.
    const pruned = (await api.session.prune({ sessionID: a.sessionID })).data!.data
    expect(pruned.bytes).toBe(entry!.items.reasoning + entry!.items.tool)
    const after = (await api.storage.stats({ sessionID: a.sessionID })).data!.data.sessions[0]!
    expect(after.items.text).toBe(entry!.items.text)
    expect(after.items.reasoning).toBe(0)
    // The pruned call stays as a marked stub, without its input and output.
    expect(after.items.tool).toBeGreaterThan(0)
    expect(after.items.tool).toBeLessThan(entry!.items.tool)
    expect(after.bytes).toBeLessThan(entry!.bytes)
    // The other session is untouched.
    const other = (await api.storage.stats({ sessionID: b.sessionID })).data!.data.sessions[0]!
    expect(other.items).toEqual(all.sessions.find((s) => s.sessionID === b.sessionID)!.items)
  })

  it("erases superseded content from the journal and records who asked", async () => {
    const { api, database } = await startTestServer()
    const { sessionID, user } = await withTurn(api)
    await api.session.correct({ sessionID, messageID: user.id, text: "a harmless prompt" })
    await api.session.prune({ sessionID })
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

    const erased = await api.session.erase({ sessionID })
    expect(erased.error).toBeUndefined()
    expect(erased.data!.data).toEqual({
      sessionID,
      events: expect.any(Number),
      fields: expect.any(Number),
      bytes: expect.any(Number),
    })
    expect(erased.data!.data.events).toBeGreaterThan(0)
    expect(erased.data!.data.fields).toBeGreaterThan(0)
    expect(erased.data!.data.bytes).toBeGreaterThan("a secret plan".length)

    const after = journal()
    expect(after.map((row) => row.type)).toEqual([...before.map((row) => row.type), "session.next.erased"])
    expect(after.some((row) => row.data.includes("secret plan"))).toBe(false)
    expect(JSON.parse(after.at(-1)!.data)).toMatchObject({ by: "user", events: erased.data!.data.events })
    // The history serves the erased journal too.
    const history = (await api.session.history({ sessionID, limit: 1000 })).data!
    expect(history.data.map((event) => event.type)).toEqual(after.map((row) => row.type))
    expect(JSON.stringify(history)).not.toContain("secret plan")
    // What is still visible stays, and the stats count the new event.
    expect((await api.session.message({ sessionID, messageID: user.id })).data!.data).toMatchObject({
      text: "a harmless prompt",
    })
    expect((await api.storage.stats({ sessionID })).data!.data.journal.events).toBe(after.length)
    // Erasing again finds nothing more to erase.
    expect((await api.session.erase({ sessionID })).data!.data).toMatchObject({ events: 0, fields: 0, bytes: 0 })
  })
})
