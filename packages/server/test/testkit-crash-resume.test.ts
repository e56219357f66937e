import type { PreflightEvent, PromisePlugin } from "@opencode-ai/plugin"
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const RULES = {
  type: "text" as const,
  id: "owner:rules",
  text: "OWNER RULES: keep the changelog current.",
  origin: { type: "plugin", pluginID: "owner" },
}

/**
 * A system-part owner whose state lives in the plugin instance (so a new process starts empty): it seeds
 * that state in `preflight` and refuses to build the context without it.
 */
const owner = (preflights: Array<PreflightEvent>) => (): PromisePlugin => ({
  id: "owner",
  setup(ctx) {
    const seeded = new Set<string>()
    ctx.session.hook("preflight", (event) => {
      preflights.push({ ...event })
      seeded.add(`${event.sessionID}:${event.agentID}`)
    })
    ctx.session.hook("context", (event) => {
      if (!seeded.has(`${event.sessionID}:${event.agentID}`)) throw new Error("owner: no state for this session")
      event.system.push({ ...RULES, origin: { type: "plugin", pluginID: "owner" } })
    })
  },
})

describe("test kit: restart({ crash: true })", () => {
  it("resumes the claimed turn: preflight reason resume fires and the resumed request carries the plugin's part with its origin", async () => {
    const preflights: Array<PreflightEvent> = []
    host = await createTestHost({ plugins: [owner(preflights)] })
    const session = await host.session()
    const held = host.model.hold()
    host.model.reply("a long answer that the crash will cut off")
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "start working" } })
    const first = await held
    expect(first.system).toContainEqual(RULES)

    // Queued first: the new host resumes the turn while it starts.
    host.model.reply("picking up where I left off")
    await host.restart({ crash: true })
    await host.client.session.wait({ sessionID: session.id })

    expect(preflights.map((event) => event.reason)).toEqual(["prompt", "resume"])
    expect(preflights[1]).toMatchObject({ sessionID: session.id, step: 1 })
    const resumed = host.model.requests.at(-1)!
    expect(host.model.requests).toHaveLength(2)
    expect(resumed.sessionID).toBe(session.id)
    expect(resumed.system).toContainEqual(RULES)
    expect(resumed.system[0]!.origin).toEqual({ type: "host", name: "default" })
    // The restart notice went to the model as part of the resumed transcript.
    expect(JSON.stringify(resumed.messages)).toContain("The server restarted while you were working")

    const { data } = await host.client.session.messages({ sessionID: session.id })
    const messages = data!.data
    expect(messages.map((message) => message.type)).toEqual(["user", "assistant", "synthetic", "assistant"])
    expect(messages[1]).toMatchObject({ finish: "interrupted" })
    expect(messages[3]).toMatchObject({ content: [{ type: "text", text: "picking up where I left off" }] })
    const info = await host.client.session.get({ sessionID: session.id })
    expect(info.data?.data.status).toBe("idle")
  })

  it("a graceful restart between turns resumes nothing and keeps the transcript", async () => {
    const preflights: Array<PreflightEvent> = []
    host = await createTestHost({ plugins: [owner(preflights)] })
    const session = await host.session()
    host.model.reply("done")
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "quick one" } })
    await host.client.session.wait({ sessionID: session.id })
    await host.restart()
    const { data } = await host.client.session.messages({ sessionID: session.id })
    expect(data!.data.map((message) => message.type)).toEqual(["user", "assistant"])
    expect(preflights.map((event) => event.reason)).toEqual(["prompt"])
    expect(host.model.requests).toHaveLength(1)
  })
})
