import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startOpenAIServer, type OpenAIServer } from "../../core/test/support/openai-server.ts"
import { startTestServer } from "./support/server.ts"

let model: OpenAIServer
beforeAll(async () => {
  model = await startOpenAIServer()
})
afterAll(() => model.close())

const isSummary = (body: any) => String(body?.messages?.[0]?.content ?? "").startsWith("You are summarising")

describe("compaction over HTTP", () => {
  it("POST .../compact runs a compaction turn; the session reports token figures; later requests send the summary", async () => {
    model.reply((body) =>
      isSummary(body)
        ? { text: "SUMMARY over http" }
        : { text: "fine", usage: { prompt_tokens: 321, completion_tokens: 9 } },
    )
    const { api } = await startTestServer({
      config: {
        model: "local/m",
        provider: {
          local: {
            type: "openai-compatible",
            baseURL: model.url,
            models: { m: { limit: { context: 50_000, output: 4_000 } } },
          },
        },
      },
    })
    const sessionID = (await api.session.create({})).data!.data.id
    for (const text of ["first question", "second question"]) {
      await api.session.prompt({ sessionID, prompt: { text } })
      await api.session.wait({ sessionID })
    }
    const before = (await api.session.get({ sessionID })).data!.data
    expect(before.context).toEqual({ tokens: 330, limit: 50_000 })

    const started = await api.session.compact({ sessionID })
    expect(started.error).toBeUndefined()
    expect(started.response?.status).toBe(204)
    await api.session.wait({ sessionID })
    const messages = (await api.session.messages({ sessionID })).data!.data
    const compaction = messages.at(-1)!
    expect(compaction).toMatchObject({
      type: "compaction",
      origin: "host",
      reason: "manual",
      summary: "SUMMARY over http",
    })
    // The compaction ran as a turn of its own, recorded in the session's history.
    const history = (await api.session.history({ sessionID })).data!.data
    const turns = history.filter((event) => event.type === "session.next.turn.started")
    expect(turns).toHaveLength(3)
    // Everything stays readable.
    expect(messages.flatMap((m) => (m.type === "user" ? [m.text] : []))).toEqual(["first question", "second question"])
    // After the compaction nothing is measured yet: the figure is the estimate of what would be sent.
    const after = (await api.session.get({ sessionID })).data!.data
    expect(after.context!.limit).toBe(50_000)
    expect(after.context!.tokens).toBeGreaterThan(0)
    expect(after.context!.tokens).toBeLessThan(330)

    const sent = model.requests.length
    await api.session.prompt({ sessionID, prompt: { text: "third question" } })
    await api.session.wait({ sessionID })
    const next = JSON.stringify(model.requests[sent])
    expect(next).toContain("SUMMARY over http")
    expect(next).toContain("second question")
    expect(next).not.toContain("first question")
  })

  it("answers 409 while a turn runs and 404 for an unknown session", async () => {
    model.reply(() => ({ text: "slow", hold: true }))
    const { api } = await startTestServer({
      config: { model: "local/m", provider: { local: { type: "openai-compatible", baseURL: model.url } } },
    })
    const sessionID = (await api.session.create({})).data!.data.id
    await api.session.prompt({ sessionID, prompt: { text: "hello" } })
    await model.held()
    const busy = await api.session.compact({ sessionID })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID })
    model.release()
    await api.session.wait({ sessionID })
    const missing = await api.session.compact({ sessionID: "ses_missing" })
    expect(missing.response?.status).toBe(404)
    expect(missing.error).toMatchObject({ _tag: "SessionNotFoundError", sessionID: "ses_missing" })
  })
})
