import type { PromisePluginContext } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Execution } from "../src/session/execution.ts"
import { Session } from "../src/session/session.ts"
import { makeHost } from "./support/host.ts"

describe("admission checks the chosen agent and model", () => {
  it("a plugin prompt naming an unknown agent or model rejects with the field, and nothing is stored", async () => {
    let ctx: PromisePluginContext | undefined
    const host = makeHost({
      config: { agent: { plan: {} } },
      plugins: [{ source: "inline:prompter", plugin: { id: "prompter", setup: (c) => void (ctx = c) } }],
    })
    const sessionID = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        return (yield* session.create({ directory: host.directory })).id
      }),
    )
    const rejected = await ctx!.session.prompt({ sessionID, text: "hi", agent: "ghost" }).catch((e: unknown) => e)
    expect(rejected).toMatchObject({ _tag: "Session.InvalidInputError", field: "agent" })
    expect((rejected as { message: string }).message).toContain('unknown agent "ghost" (known: build, general, plan)')

    const byModel = await host
      .exit(
        Effect.gen(function* () {
          const execution = yield* Execution
          return yield* execution.prompt({ sessionID, prompt: { text: "hi" }, model: { providerID: "nope", id: "x" } })
        }),
      )
      .then((exit) => JSON.parse(JSON.stringify(exit)))
    expect(JSON.stringify(byModel)).toContain('unknown provider \\"nope\\"')
    expect(JSON.stringify(byModel)).toContain('"field":"model"')

    const stored = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        return { info: yield* session.get(sessionID), items: (yield* session.messages(sessionID)).data }
      }),
    )
    expect(stored.items).toEqual([])
    expect(stored.info.seq).toBe(1)
    await expect(ctx!.session.prompt({ sessionID, text: "hi", agent: "plan" })).resolves.toMatchObject({
      id: expect.stringMatching(/^msg_/),
      sessionID,
      prompt: { text: "hi" },
    })
    await host.dispose()
  })

  it("a plugin creating a session with an unknown agent is refused with the field, and no session is stored", async () => {
    let ctx: PromisePluginContext | undefined
    const host = makeHost({
      config: { agent: { plan: {} } },
      plugins: [{ source: "inline:creator", plugin: { id: "creator", setup: (c) => void (ctx = c) } }],
    })
    const count = () =>
      host.run(
        Effect.gen(function* () {
          return (yield* (yield* Session).list({ limit: 200 })).data.length
        }),
      )
    const before = await count()
    const rejected = await ctx!.session
      .create({ title: "typo", directory: host.directory, agent: "ghost" })
      .catch((e: unknown) => e)
    expect(rejected).toMatchObject({ _tag: "Session.InvalidInputError", field: "agent" })
    expect((rejected as { message: string }).message).toContain('unknown agent "ghost" (known: build, general, plan)')
    expect(await count()).toBe(before)

    const created = await ctx!.session.create({ title: "ok", directory: host.directory, agent: "plan" })
    expect(created.agent).toBe("plan")
    expect(await count()).toBe(before + 1)
    await host.dispose()
  })
})
