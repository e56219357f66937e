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
    const { client } = await startTestServer({
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
    const sessionID = (await client.session.create({ body: {} })).data!.id
    for (const text of ["first question", "second question"]) {
      await client.session.prompt({ path: { sessionID }, body: { text } })
      await client.session.wait({ path: { sessionID } })
    }
    const before = (await client.session.get({ path: { sessionID } })).data!
    expect(before.tokens).toEqual({ context: 330, limit: 50_000 })

    const started = await client.session.compact({ path: { sessionID } })
    expect(started.error).toBeUndefined()
    expect(started.data!.turnID).toMatch(/^trn_/)
    await client.session.wait({ path: { sessionID } })
    const messages = (await client.message.list({ path: { sessionID } })).data!.items
    const compaction = messages.at(-1)!
    expect(compaction).toMatchObject({
      type: "compaction",
      origin: "host",
      reason: "manual",
      parts: [{ type: "text", text: "SUMMARY over http" }],
    })
    // Everything stays readable.
    expect(messages.filter((m) => m.type === "user").map((m) => (m.parts[0] as { text: string }).text)).toEqual([
      "first question",
      "second question",
    ])
    // After the compaction nothing is measured yet: the figure is the estimate of what would be sent.
    const after = (await client.session.get({ path: { sessionID } })).data!
    expect(after.tokens.limit).toBe(50_000)
    expect(after.tokens.context).toBeGreaterThan(0)
    expect(after.tokens.context).toBeLessThan(330)

    const sent = model.requests.length
    await client.session.prompt({ path: { sessionID }, body: { text: "third question" } })
    await client.session.wait({ path: { sessionID } })
    const next = JSON.stringify(model.requests[sent])
    expect(next).toContain("SUMMARY over http")
    expect(next).toContain("second question")
    expect(next).not.toContain("first question")
  })

  it("answers 409 while a turn runs and 404 for an unknown session", async () => {
    model.reply(() => ({ text: "slow", hold: true }))
    const { client } = await startTestServer({
      config: { model: "local/m", provider: { local: { type: "openai-compatible", baseURL: model.url } } },
    })
    const sessionID = (await client.session.create({ body: {} })).data!.id
    await client.session.prompt({ path: { sessionID }, body: { text: "hello" } })
    await model.held()
    const busy = await client.session.compact({ path: { sessionID } })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID })
    model.release()
    await client.session.wait({ path: { sessionID } })
    const missing = await client.session.compact({ path: { sessionID: "ses_missing" } })
    expect(missing.response?.status).toBe(404)
  })
})
