/**
 * The worked examples of docs/testing-plugins.md, as they appear there (plugin and test side by side), so
 * the guide cannot drift from what the kit does.
 */
import { writeFileSync } from "node:fs"
import type { Message, PromisePlugin, PromisePluginContext } from "@opencode-ai/plugin"
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

// --- 1. A notice plugin that retracts its stale notice (busy -> retry) ---------------------------------

/** Posts a status notice per session and retracts it when it goes stale, retrying while a turn runs. */
const buildStatus = (api: {
  post?: (sessionID: string, text: string) => Promise<void>
  clear?: (sessionID: string) => Promise<Message>
  busy?: () => void
}): PromisePlugin => ({
  id: "build-status",
  setup(ctx: PromisePluginContext) {
    const posted = new Map<string, string>()
    api.post = async (sessionID, text) => {
      const { id } = await ctx.session.synthetic({ sessionID, text, resume: false })
      posted.set(sessionID, id)
    }
    api.clear = async (sessionID) => {
      const messageID = posted.get(sessionID)!
      for (let attempt = 0; ; attempt++) {
        try {
          return await ctx.session.message.remove({ sessionID, messageID })
        } catch (error) {
          if ((error as { _tag?: string })._tag !== "Session.BusyError" || attempt >= 8) throw error
          api.busy?.()
          await ctx.session.wait({ sessionID }) // a retry is not a reservation: loop if a new turn won
        }
      }
    }
  },
})

// --- 2. A system-part owner that survives a crash --------------------------------------------------------

const RULES = "House rules: run the tests before you say done."

/** Adds its own system part; refuses to run without state established in preflight for that session. */
const houseRules = (): PromisePlugin => ({
  id: "house-rules",
  setup(ctx) {
    const ready = new Set<string>() // in-memory, as in a real process: gone after a crash
    ctx.session.hook("preflight", (event) => void ready.add(event.sessionID))
    ctx.session.hook("context", (event) => {
      if (!ready.has(event.sessionID)) throw new Error("house-rules: no state for this session")
      event.system.push({
        type: "text",
        id: "house-rules",
        text: RULES,
        origin: { type: "plugin", pluginID: "house-rules" },
      })
    })
  },
})

// --- 3. A pruner -----------------------------------------------------------------------------------------

/** Sends old tool output as "[pruned]": only the outgoing request changes, the stored transcript keeps it. */
const pruner: PromisePlugin = {
  id: "pruner",
  setup(ctx) {
    ctx.session.hook("context", (event) => {
      const lastUser = event.messages.findLastIndex((message) => message.role === "user")
      event.messages.forEach((message, index) => {
        if (index >= lastUser || message.role !== "tool") return
        for (const part of message.content) part.output = "[pruned]"
      })
    })
  },
}

describe("docs/testing-plugins.md worked examples", () => {
  it("1. the stale notice is retracted once the running turn ends", async () => {
    const api: Parameters<typeof buildStatus>[0] = {}
    host = await createTestHost({ plugins: [buildStatus(api)] })
    const { id: sessionID } = await host.session()
    await api.post!(sessionID, "CI is red on main")

    const held = host.model.hold()
    host.model.reply("looking into it")
    await host.client.session.prompt({ sessionID, prompt: { text: "fix CI" } })
    await held
    const wasBusy = new Promise<void>((resolve) => (api.busy = resolve))
    const cleared = api.clear!(sessionID)
    await wasBusy // the first attempt met the running turn
    host.model.release()
    const message = await cleared
    expect(message).toMatchObject({ retracted: { by: "plugin:build-status" } })
    expect(JSON.stringify(message)).not.toContain("CI is red")
  })

  it("2. the rules survive a crash: the resumed request carries them with the plugin's origin", async () => {
    host = await createTestHost({ plugins: [houseRules] })
    const { id: sessionID } = await host.session()
    const held = host.model.hold()
    await host.client.session.prompt({ sessionID, prompt: { text: "refactor the parser" } })
    await held
    host.model.reply("continuing after the restart")
    await host.restart({ crash: true })
    await host.client.session.wait({ sessionID })
    const resumed = host.model.requests.at(-1)!
    expect(resumed.system).toContainEqual({
      type: "text",
      id: "house-rules",
      text: RULES,
      origin: { type: "plugin", pluginID: "house-rules" },
    })
    const { data } = await host.client.session.messages({ sessionID })
    expect(data!.data.at(-1)).toMatchObject({ content: [{ type: "text", text: "continuing after the restart" }] })
  })

  it("3. old tool output is pruned from the request, never from storage", async () => {
    host = await createTestHost({ plugins: [pruner] })
    writeFileSync(`${host.directory}/notes.txt`, "the secret ingredient is cardamom\n")
    const { id: sessionID } = await host.session()
    host.model.reply({ tools: [{ name: "read", input: { path: "notes.txt" } }] }, "It is cardamom.", "Sure.")
    await host.client.session.prompt({ sessionID, prompt: { text: "what is in notes.txt?" } })
    await host.client.session.wait({ sessionID })
    await host.client.session.prompt({ sessionID, prompt: { text: "thanks" } })
    await host.client.session.wait({ sessionID })

    const [, answer, next] = host.model.requests
    expect(JSON.stringify(answer!.messages)).toContain("cardamom") // the tool result, while it is current
    expect(JSON.stringify(next!.messages.filter((message) => message.role === "tool"))).not.toContain("cardamom")
    const { data } = await host.client.session.messages({ sessionID })
    expect(JSON.stringify(data!.data)).toContain("the secret ingredient is cardamom")
  })
})
