import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient, ScriptedModel, TestApi, testApiWithModel } from "./support/api-server.ts"

const isSummary = (body: any) => String(body?.messages?.[0]?.content ?? "").startsWith("You are summarising")

const server = testApiWithModel((model) => ({
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
}))

layer(server)("compaction over HTTP", (it) => {
  it.effect(
    "POST .../compact runs a compaction turn; the session reports token figures; later requests send the summary",
    () =>
      Effect.gen(function* () {
        const model = yield* ScriptedModel
        const client = yield* apiClient
        const session = client["v2.session"]
        model.reply((body) =>
          isSummary(body)
            ? { text: "SUMMARY over http" }
            : { text: "fine", usage: { prompt_tokens: 321, completion_tokens: 9 } },
        )
        const sessionID = (yield* session.create({ payload: {} })).data.id
        const params = { sessionID }
        for (const text of ["first question", "second question"]) {
          yield* session.prompt({ params, payload: { prompt: { text } } })
          yield* session.wait({ params })
        }
        const before = (yield* session.get({ params })).data
        expect(before.context).toEqual({ tokens: 330, limit: 50_000 })

        // 204 on the wire (the typed client decodes the declared no-content success).
        const { url } = yield* TestApi
        const started = yield* Effect.promise(() =>
          fetch(`${url}/api/session/${sessionID}/compact`, { method: "POST" }),
        )
        expect(started.status).toBe(204)
        yield* session.wait({ params })
        const messages = (yield* session.messages({ params, query: {} })).data
        const compaction = messages.at(-1)!
        expect(compaction).toMatchObject({
          type: "compaction",
          origin: "host",
          reason: "manual",
          summary: "SUMMARY over http",
        })
        // The compaction ran as a turn of its own, recorded in the session's history.
        const history = (yield* session.history({ params, query: {} })).data
        const turns = history.filter((event) => event.type === "session.next.turn.started")
        expect(turns).toHaveLength(3)
        // Everything stays readable.
        expect(messages.flatMap((m) => (m.type === "user" ? [m.text] : []))).toEqual([
          "first question",
          "second question",
        ])
        // After the compaction nothing is measured yet: the figure is the estimate of what would be sent.
        const after = (yield* session.get({ params })).data
        expect(after.context!.limit).toBe(50_000)
        expect(after.context!.tokens).toBeGreaterThan(0)
        expect(after.context!.tokens).toBeLessThan(330)

        const sent = model.requests.length
        yield* session.prompt({ params, payload: { prompt: { text: "third question" } } })
        yield* session.wait({ params })
        const next = JSON.stringify(model.requests[sent])
        expect(next).toContain("SUMMARY over http")
        expect(next).toContain("second question")
        expect(next).not.toContain("first question")
      }),
  )

  it.effect("answers 409 while a turn runs and 404 for an unknown session", () =>
    Effect.gen(function* () {
      const model = yield* ScriptedModel
      const session = (yield* apiClient)["v2.session"]
      model.reply(() => ({ text: "slow", hold: true }))
      const sessionID = (yield* session.create({ payload: {} })).data.id
      yield* session.prompt({ params: { sessionID }, payload: { prompt: { text: "hello" } } })
      yield* Effect.promise(() => model.held())
      // The client decodes each refusal by its declared status: 409 and 404.
      const busy = yield* Effect.flip(session.compact({ params: { sessionID } }))
      expect(busy).toMatchObject({ _tag: "SessionBusyError", sessionID })
      model.release()
      yield* session.wait({ params: { sessionID } })
      const missing = yield* Effect.flip(session.compact({ params: { sessionID: "ses_missing" } }))
      expect(missing).toMatchObject({ _tag: "SessionNotFoundError", sessionID: "ses_missing" })
    }),
  )
})
