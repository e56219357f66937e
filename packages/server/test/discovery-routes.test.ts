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
  it("list providers, models with their limits, agents, and the config with secrets redacted", async () => {
    const { api } = await startTestServer({ config })
    const providers = (await api.provider.list()).data!
    expect(providers.data.map((p) => p.id)).toEqual(["offline", "local"])
    expect(providers.data.find((p) => p.id === "local")).toMatchObject({
      api: { type: "aisdk", package: "@ai-sdk/openai-compatible", url: "http://127.0.0.1:9/v1" },
    })
    expect((await api.provider.get({ providerID: "local" })).data!.data.id).toBe("local")
    const missing = await api.provider.get({ providerID: "nope" })
    expect(missing.response?.status).toBe(404)
    expect(missing.error).toMatchObject({ _tag: "ProviderNotFoundError", providerID: "nope" })

    const models = (await api.model.list()).data!.data
    expect(models.map((m) => `${m.providerID}/${m.id}`)).toEqual(["offline/echo", "local/test-model"])
    expect(models.find((m) => m.id === "test-model")).toMatchObject({
      limit: { context: 8000, output: 1000 },
      default: true,
    })
    expect(models.find((m) => m.id === "echo")!.default).toBeUndefined()

    const agents = (await api.agent.list()).data!.data
    expect(agents.map((a) => a.id)).toEqual(["build", "general", "plan"])
    expect(agents[0]).toMatchObject({ id: "build", mode: "primary", steps: 25 })
    expect(agents[0]!.model).toBeUndefined()
    expect(agents[1]).toMatchObject({ id: "general", mode: "subagent", description: expect.any(String) })
    expect(agents[2]).toMatchObject({
      id: "plan",
      mode: "all",
      model: { providerID: "offline", id: "echo" },
      system: "Plan only.",
      steps: 3,
    })

    const { data: effective, response } = await api.config.get()
    expect(response?.status).toBe(200)
    const redacted = effective!.data as {
      model: string
      provider: Record<string, { apiKey?: string; headers?: Record<string, string> }>
    }
    expect(redacted.model).toBe("local/test-model")
    expect(redacted.provider.local!.apiKey).toBe("[redacted]")
    expect(redacted.provider.local!.headers).toEqual({ authorization: "[redacted]" })
    // No discovery answer carries a key or a configured header value.
    for (const answer of [effective, providers, await api.provider.get({ providerID: "local" }), models, agents]) {
      expect(JSON.stringify(answer)).not.toContain("secret")
    }
    expect((await api.provider.list()).response?.headers.get("content-type")).toContain("application/json")
  })

  it("refuses an unknown model or agent at admission with 400 and the field, storing nothing", async () => {
    const test = await startTestServer({ config })
    const { api } = test
    const session = (await api.session.create({})).data!.data
    const before = (await api.session.get({ sessionID: session.id })).data!.data

    for (const [body, field, named] of [
      [{ prompt: { text: "hi" }, model: { providerID: "nope", id: "x" } }, "model", "nope/x"],
      [{ prompt: { text: "hi" }, model: { providerID: "local", id: "not-listed" } }, "model", "local/not-listed"],
      [{ prompt: { text: "hi" }, agent: "ghost" }, "agent", "ghost"],
      [{ prompt: { text: "hi" }, agent: "toString" }, "agent", "toString"],
    ] as const) {
      const response = await test.fetch(`/api/session/${session.id}/prompt`, json("POST", body))
      expect(response.status).toBe(400)
      const error = await response.json()
      expect(error).toMatchObject({ _tag: "InvalidRequestError", field })
      expect(error.message).toContain(named)
    }
    // Through the SDK the error is typed.
    const typed = await api.session.prompt({ sessionID: session.id, prompt: { text: "hi" }, agent: "ghost" })
    expect(typed.error).toMatchObject({ _tag: "InvalidRequestError", field: "agent" })

    const after = (await api.session.get({ sessionID: session.id })).data!.data
    expect(after.seq).toBe(before.seq)
    expect((await api.session.messages({ sessionID: session.id })).data!.data).toEqual([])

    // A session cannot be created with them either; a known pair is accepted.
    const sessions = (await api.session.list()).data!.data.length
    const refused = await api.session.create({ model: { providerID: "nope", id: "x" } })
    expect(refused.error).toMatchObject({ _tag: "InvalidRequestError", field: "model" })
    expect((await api.session.create({ agent: "ghost" })).error).toMatchObject({ field: "agent" })
    expect((await api.session.list()).data!.data).toHaveLength(sessions)
    const ok = await api.session.prompt({
      sessionID: session.id,
      prompt: { text: "hi" },
      agent: "plan",
      model: { providerID: "offline", id: "echo" },
    })
    expect(ok.error).toBeUndefined()
    await api.session.wait({ sessionID: session.id })
  })
})
