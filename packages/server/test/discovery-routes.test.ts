import { describe, expect, it } from "vitest"
import { json, startTestServer } from "./support/server.ts"

const config = {
  model: "local/test-model",
  provider: {
    local: {
      type: "openai-compatible" as const,
      baseURL: "http://127.0.0.1:9/v1",
      apiKey: "sk-very-secret",
      headers: { authorization: "Bearer also-secret" },
      models: { "test-model": { limit: { context: 8000, output: 1000 } } },
    },
  },
  agent: { plan: { system: "Plan only.", model: "offline/echo", steps: 3 } },
}

describe("discovery routes", () => {
  it("list providers with models and limits, agents, and the config with secrets redacted", async () => {
    const { client } = await startTestServer({ config })
    const providers = (await client.provider.list()).data!
    expect(providers.default).toBe("local/test-model")
    expect(providers.items.map((p) => p.id)).toContain("offline")
    expect(providers.items.find((p) => p.id === "local")).toMatchObject({
      type: "openai-compatible",
      source: "config",
      baseURL: "http://127.0.0.1:9/v1",
      models: [{ id: "test-model", limit: { context: 8000, output: 1000 } }],
      retries: 4,
      timeout: 600_000,
    })

    const agents = (await client.agent.list()).data!
    expect(agents.items).toEqual([
      { id: "build", steps: 25, system: false, default: true },
      { id: "plan", model: "offline/echo", steps: 3, system: true, default: false },
    ])

    const { data: effective, response } = await client.config.get()
    expect(response?.status).toBe(200)
    expect(effective!.model).toBe("local/test-model")
    expect(effective!.provider!.local!.apiKey).toBe("[redacted]")
    expect(effective!.provider!.local!.headers).toEqual({ authorization: "[redacted]" })
    expect(JSON.stringify(effective)).not.toContain("secret")
    expect((await client.provider.list()).response?.headers.get("content-type")).toContain("application/json")
  })

  it("refuses an unknown model or agent at admission with 400 and the field, storing nothing", async () => {
    const test = await startTestServer({ config })
    const { client } = test
    const session = (await client.session.create({ body: {} })).data!
    const before = (await client.session.get({ path: { sessionID: session.id } })).data!

    for (const [body, field] of [
      [{ text: "hi", model: "nope/x" }, "model"],
      [{ text: "hi", model: "local/not-listed" }, "model"],
      [{ text: "hi", agent: "ghost" }, "agent"],
      [{ text: "hi", agent: "toString" }, "agent"],
    ] as const) {
      const response = await test.fetch(`/api/session/${session.id}/prompt`, json("POST", body))
      expect(response.status).toBe(400)
      const error = await response.json()
      expect(error).toMatchObject({ _tag: "InvalidRequestError", field })
      expect(error.message).toContain(field === "model" ? body.model : "ghost" in body ? "ghost" : body.agent)
    }
    // Through the SDK the error is typed.
    const typed = await client.session.prompt({ path: { sessionID: session.id }, body: { text: "hi", agent: "ghost" } })
    expect(typed.error).toMatchObject({ _tag: "InvalidRequestError", field: "agent" })

    const after = (await client.session.get({ path: { sessionID: session.id } })).data!
    expect(after.seq).toBe(before.seq)
    expect((await client.message.list({ path: { sessionID: session.id } })).data!.items).toEqual([])

    // A session cannot be created with them either; a known pair is accepted.
    const refused = await client.session.create({ body: { model: "nope/x" } })
    expect(refused.error).toMatchObject({ _tag: "InvalidRequestError", field: "model" })
    expect((await client.session.create({ body: { agent: "ghost" } })).error).toMatchObject({ field: "agent" })
    const ok = await client.session.prompt({
      path: { sessionID: session.id },
      body: { text: "hi", agent: "plan", model: "offline/echo" },
    })
    expect(ok.error).toBeUndefined()
    await client.session.wait({ path: { sessionID: session.id } })
  })
})
