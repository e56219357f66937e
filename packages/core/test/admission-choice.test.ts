import type { PromisePluginContext } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Execution } from "../src/turn/execution.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

describe("admission checks the chosen agent and model", () => {
  it.live("a plugin prompt naming an unknown agent or model rejects with the field, and nothing is stored", () => {
    let ctx: PromisePluginContext | undefined
    const host = testHost({
      config: { agent: { plan: {} } },
      plugins: [{ source: "inline:prompter", plugin: { id: "prompter", setup: (c) => void (ctx = c) } }],
    })
    return Effect.gen(function* () {
      const session = yield* Session
      const execution = yield* Execution
      const sessionID = (yield* session.create({ directory: host.directory })).id
      const rejected = yield* Effect.promise(() =>
        ctx!.session.prompt({ sessionID, text: "hi", agent: "ghost" }).catch((e: unknown) => e),
      )
      expect(rejected).toMatchObject({ _tag: "Session.InvalidInputError", field: "agent" })
      expect((rejected as { message: string }).message).toContain('unknown agent "ghost" (known: build, general, plan)')

      const byModel = JSON.parse(
        JSON.stringify(
          yield* Effect.exit(
            execution.prompt({ sessionID, prompt: { text: "hi" }, model: { providerID: "nope", id: "x" } }),
          ),
        ),
      )
      expect(JSON.stringify(byModel)).toContain('unknown provider \\"nope\\"')
      expect(JSON.stringify(byModel)).toContain('"field":"model"')

      const stored = { info: yield* session.get(sessionID), items: (yield* session.messages(sessionID)).data }
      expect(stored.items).toEqual([])
      expect(stored.info.seq).toBe(1)
      const accepted = yield* Effect.promise(() => ctx!.session.prompt({ sessionID, text: "hi", agent: "plan" }))
      expect(accepted).toMatchObject({
        id: expect.stringMatching(/^msg_/),
        sessionID,
        prompt: { text: "hi" },
      })
    }).pipe(Effect.provide(host.layer))
  })

  it.live(
    "a plugin creating a session with an unknown agent is refused with the field, and no session is stored",
    () => {
      let ctx: PromisePluginContext | undefined
      const host = testHost({
        config: { agent: { plan: {} } },
        plugins: [{ source: "inline:creator", plugin: { id: "creator", setup: (c) => void (ctx = c) } }],
      })
      return Effect.gen(function* () {
        const session = yield* Session
        const count = session.list({ limit: 200 }).pipe(Effect.map((page) => page.data.length))
        const before = yield* count
        const rejected = yield* Effect.promise(() =>
          ctx!.session.create({ title: "typo", directory: host.directory, agent: "ghost" }).catch((e: unknown) => e),
        )
        expect(rejected).toMatchObject({ _tag: "Session.InvalidInputError", field: "agent" })
        expect((rejected as { message: string }).message).toContain(
          'unknown agent "ghost" (known: build, general, plan)',
        )
        expect(yield* count).toBe(before)

        const created = yield* Effect.promise(() =>
          ctx!.session.create({ title: "ok", directory: host.directory, agent: "plan" }),
        )
        expect(created.agent).toBe("plan")
        expect(yield* count).toBe(before + 1)
      }).pipe(Effect.provide(host.layer))
    },
  )
})
