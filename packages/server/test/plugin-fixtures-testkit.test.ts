/**
 * The project's own plugin fixtures, tested with the plugin test kit (`@opencode-ai/server/testing`): the
 * in-process counterpart of the child-process harness in `restart-harness.test.ts`, and of the exposer-based
 * end-to-end tests. Plugins load from their files through the host's own loader.
 */
import { RESTART_NOTICE } from "@opencode-ai/core"
import type { SessionMessageAssistant } from "@opencode-ai/sdk/v2"
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"
import { pluginContext, REWRITE_PREFIX, SUBSTITUTE_PREFIX } from "./fixtures/exposer.ts"
import { GUARD_PART_ID, GUARD_TEXT } from "./fixtures/guard.ts"
import { OWNED_END, OWNED_START, OWNERSHIP_ERROR, ownedRegion } from "./fixtures/ownership.ts"
import { fixture } from "./support/e2e-setup.ts"

const AGENT_SYSTEM = "NATIVE AGENT SYSTEM TEXT: you are the build agent of this project."

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
  delete process.env.OWNERSHIP_SEED
})

/** Starts the ownership and guard fixtures, prompts once, and crashes the host with the answer held mid-stream. */
const crashMidTurn = async (seed: "preflight" | "prompt") => {
  // The fixture reads its seeding mode when it is set up, at every (re)start.
  process.env.OWNERSHIP_SEED = seed
  host = await createTestHost({
    plugins: [fixture("ownership.ts"), fixture("guard.ts")],
    config: { agent: { build: { system: AGENT_SYSTEM } } },
  })
  const session = await host.session()
  const held = host.model.hold()
  host.model.reply("working through the plan, step one")
  await host.client.session.prompt({ sessionID: session.id, prompt: { text: "do the work" } })
  await held
  host.model.reply("resumed and done")
  await host.restart({ crash: true })
  await host.client.session.wait({ sessionID: session.id })
  return { host, sessionID: session.id }
}

const ownedPart = (sessionID: string) => ({
  type: "text",
  id: "agent:build",
  text: `${OWNED_START}\n${ownedRegion(sessionID, "build")}\n${OWNED_END}`,
  origin: { type: "agent", agentID: "build" },
})

describe("plugin fixtures under the test kit", () => {
  it("ownership + guard: the request that resumes a crashed turn carries the owned agent part and the guard's part, each with its origin", async () => {
    const { host, sessionID } = await crashMidTurn("preflight")
    expect(host.model.requests).toHaveLength(2)
    const [first, resumed] = host.model.requests
    for (const request of [first!, resumed!]) {
      expect(request.sessionID).toBe(sessionID)
      expect(request.system).toEqual([
        ownedPart(sessionID),
        { type: "text", id: GUARD_PART_ID, text: GUARD_TEXT, origin: { type: "plugin", pluginID: "guard" } },
      ])
      expect(JSON.stringify(request.body)).not.toContain(AGENT_SYSTEM)
    }
    expect(JSON.stringify(resumed!.messages)).toContain(RESTART_NOTICE)
    const { data } = await host.client.session.messages({ sessionID })
    expect((data!.data.at(-1) as SessionMessageAssistant).content[0]).toMatchObject({ text: "resumed and done" })
  })

  it("ownership seeded only at prompt admission (before preflight existed): the resumed request fails closed, the next prompt heals", async () => {
    const { host, sessionID } = await crashMidTurn("prompt")
    // The resumed turn never reached the model: the context hook refused to guess.
    expect(host.model.requests).toHaveLength(1)
    const { data } = await host.client.session.messages({ sessionID })
    const failed = data!.data.at(-1) as SessionMessageAssistant
    expect(failed).toMatchObject({ finish: "error", error: { name: "Plugin.HookError" } })
    expect(failed.error?.message).toContain(OWNERSHIP_ERROR)

    await host.client.session.prompt({ sessionID, prompt: { text: "try again" } })
    await host.client.session.wait({ sessionID })
    expect(host.model.requests).toHaveLength(2)
    expect(host.model.requests[1]!.system[0]).toEqual(ownedPart(sessionID))
  })

  it("exposer: a notice its synthetic hook rewrote, once retracted, reaches neither the store nor the next request", async () => {
    host = await createTestHost({ plugins: [fixture("exposer.ts")] })
    const ctx = pluginContext(host.directory)
    const session = await host.session()
    const sessionID = session.id
    const notice = await ctx.session.synthetic({
      sessionID,
      text: `${REWRITE_PREFIX}deploy key is hunter2`,
      resume: false,
    })
    const stored = await ctx.session.message.get({ sessionID, messageID: notice.id })
    expect(JSON.stringify(stored)).toContain(`${SUBSTITUTE_PREFIX}deploy key is hunter2`)

    const retracted = await ctx.session.message.remove({ sessionID, messageID: notice.id })
    expect(retracted).toMatchObject({ id: notice.id, retracted: { by: "plugin:e2e-exposer" } })
    await host.client.session.prompt({ sessionID, prompt: { text: "what was the notice?" } })
    await host.client.session.wait({ sessionID })
    const sent = JSON.stringify(host.model.requests.at(-1)!.body)
    expect(sent).toContain("what was the notice?")
    expect(sent).not.toContain("hunter2")
  })
})
