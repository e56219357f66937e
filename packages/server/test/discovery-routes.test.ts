import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient, TestApi, testApiLayer } from "./support/api-server.ts"
import { json } from "./support/server.ts"

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

layer(testApiLayer({ config }))("discovery routes", (it) => {
  it.effect("list providers, models with their limits, agents, and the config with secrets redacted", () =>
    Effect.gen(function* () {
      const client = yield* apiClient
      const providers = yield* client["v2.provider"].list({ query: {} })
      expect(providers.data.map((p) => p.id)).toEqual(["offline", "local"])
      expect(providers.data.find((p) => p.id === "local")).toMatchObject({
        api: { type: "aisdk", package: "@ai-sdk/openai-compatible", url: "http://127.0.0.1:9/v1" },
      })
      const local = yield* client["v2.provider"].get({ params: { providerID: "local" }, query: {} })
      expect(local.data.id).toBe("local")
      const missing = yield* Effect.flip(client["v2.provider"].get({ params: { providerID: "nope" }, query: {} }))
      expect(missing).toMatchObject({ _tag: "ProviderNotFoundError", providerID: "nope" })

      const models = (yield* client["v2.model"].list({ query: {} })).data
      expect(models.map((m) => `${m.providerID}/${m.id}`)).toEqual(["offline/echo", "local/test-model"])
      expect(models.find((m) => m.id === "test-model")).toMatchObject({
        limit: { context: 8000, output: 1000 },
        default: true,
      })
      expect(models.find((m) => m.id === "echo")!.default).toBeUndefined()

      const agents = (yield* client["v2.agent"].list({ query: {} })).data
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

      const effective = yield* client["v2.config"].get({ query: {} })
      const redacted = effective.data as {
        model: string
        provider: Record<string, { apiKey?: string; headers?: Record<string, string> }>
      }
      expect(redacted.model).toBe("local/test-model")
      expect(redacted.provider.local!.apiKey).toBe("[redacted]")
      expect(redacted.provider.local!.headers).toEqual({ authorization: "[redacted]" })
      // No discovery answer carries a key or a configured header value.
      for (const answer of [effective, providers, local, models, agents]) {
        expect(JSON.stringify(answer)).not.toContain("secret")
      }
      // The typed client decoded the error by its status; on the wire it is a JSON 404.
      const server = yield* TestApi
      const wire = yield* Effect.promise(() => server.fetch("/api/provider/nope"))
      expect(wire.status).toBe(404)
      const listed = yield* Effect.promise(() => server.fetch("/api/provider"))
      expect(listed.headers.get("content-type")).toContain("application/json")
    }),
  )

  it.effect("refuses an unknown model or agent at admission with 400 and the field, storing nothing", () =>
    Effect.gen(function* () {
      const client = yield* apiClient
      const server = yield* TestApi
      const session = (yield* client["v2.session"].create({ payload: {} })).data
      const before = (yield* client["v2.session"].get({ params: { sessionID: session.id } })).data

      for (const [body, field, named] of [
        [{ prompt: { text: "hi" }, model: { providerID: "nope", id: "x" } }, "model", "nope/x"],
        [{ prompt: { text: "hi" }, model: { providerID: "local", id: "not-listed" } }, "model", "local/not-listed"],
        [{ prompt: { text: "hi" }, agent: "ghost" }, "agent", "ghost"],
        [{ prompt: { text: "hi" }, agent: "toString" }, "agent", "toString"],
      ] as const) {
        const response = yield* Effect.promise(() =>
          server.fetch(`/api/session/${session.id}/prompt`, json("POST", body)),
        )
        expect(response.status).toBe(400)
        const error = yield* Effect.promise(() => response.json())
        expect(error).toMatchObject({ _tag: "InvalidRequestError", field })
        expect(error.message).toContain(named)
      }
      // Through the typed client the error is the declared one.
      const typed = yield* Effect.flip(
        client["v2.session"].prompt({
          params: { sessionID: session.id },
          payload: { prompt: { text: "hi" }, agent: "ghost" },
        }),
      )
      expect(typed).toMatchObject({ _tag: "InvalidRequestError", field: "agent" })

      const after = (yield* client["v2.session"].get({ params: { sessionID: session.id } })).data
      expect(after.seq).toBe(before.seq)
      expect((yield* client["v2.session"].messages({ params: { sessionID: session.id }, query: {} })).data).toEqual([])

      // A session cannot be created with them either; a known pair is accepted.
      const sessions = (yield* client["v2.session"].list({ query: {} })).data.length
      const refused = yield* Effect.flip(
        client["v2.session"].create({ payload: { model: { providerID: "nope", id: "x" } } }),
      )
      expect(refused).toMatchObject({ _tag: "InvalidRequestError", field: "model" })
      expect(yield* Effect.flip(client["v2.session"].create({ payload: { agent: "ghost" } }))).toMatchObject({
        field: "agent",
      })
      expect((yield* client["v2.session"].list({ query: {} })).data).toHaveLength(sessions)
      yield* client["v2.session"].prompt({
        params: { sessionID: session.id },
        payload: { prompt: { text: "hi" }, agent: "plan", model: { providerID: "offline", id: "echo" } },
      })
      yield* client["v2.session"].wait({ params: { sessionID: session.id } })
    }),
  )
})
