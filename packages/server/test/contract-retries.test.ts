/**
 * Small contract fixes, through a real server, the SDK and plugins loaded from files:
 *   - removing an item that was already taken out (a pruned tool call, a removed reasoning item) answers
 *     200 with the current message and commits nothing (over HTTP and through a plugin), like retracting a
 *     retracted message; an item that never existed is still 404;
 *   - a hook failure recorded on the turn names the plugin and the hook;
 *   - an erase with nothing to erase commits nothing.
 */
import type { SessionMessageAssistant } from "@opencode-ai/sdk/v2"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { pluginContext } from "./fixtures/exposer.ts"
import { fixture, localProviderConfig } from "./support/e2e-setup.ts"
import { startTestServer } from "./support/server.ts"

const THROWER = fileURLToPath(new URL("../../core/test/fixtures/plugins/thrower.ts", import.meta.url))

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

const start = () =>
  startTestServer({
    config: localProviderConfig(provider.url, { plugin: [fixture("exposer.ts"), THROWER], events: { persist: true } }),
  })

describe("idempotent retries and named hook failures", () => {
  it("a second removal of an item is 200 with the message and no new event; a never-existing item is 404", async () => {
    const server = await start()
    const { api } = server
    const ctx = pluginContext(server.directory)
    const sessionID = (await api.session.create({ location: { directory: server.directory } })).data!.data.id
    const seqOf = async () => (await api.session.get({ sessionID })).data!.data.seq
    provider.enqueue(
      { reasoning: "thinking hard", text: "calling", toolCalls: [{ name: "no_such_tool", arguments: {} }] },
      { text: "done" },
    )
    await api.session.prompt({ sessionID, prompt: { text: "go" } })
    await api.session.wait({ sessionID })
    const assistant = (await api.session.messages({ sessionID })).data!.data.find(
      (m): m is SessionMessageAssistant => m.type === "assistant",
    )!
    const tool = assistant.content.find((p) => p.type === "tool")!
    const reasoning = assistant.content.find((p) => p.type === "reasoning")!

    const first = await api.session.removeItem({ sessionID, messageID: assistant.id, itemID: tool.id })
    expect(first.response?.status).toBe(200)
    const seq = await seqOf()

    const again = await api.session.removeItem({ sessionID, messageID: assistant.id, itemID: tool.id })
    expect(again.response?.status).toBe(200)
    expect(again.data).toEqual(first.data)
    expect(await seqOf()).toBe(seq)

    // The same through a plugin, for an item removed by prune.
    await api.session.prune({ sessionID, types: ["reasoning"] })
    const seqAfterPrune = await seqOf()
    const viaPlugin = (await ctx.session.item.remove({
      sessionID,
      messageID: assistant.id,
      itemID: reasoning.id,
    })) as SessionMessageAssistant
    // The reasoning is gone, its id kept in `removed`; the pruned tool call stays, emptied.
    expect(viaPlugin.content.map((p) => p.type)).toEqual(["text", "tool"])
    expect(viaPlugin.content[1]).toMatchObject({ id: tool.id, time: { pruned: expect.any(Number) } })
    expect(viaPlugin.removed).toEqual([reasoning.id])
    expect(await seqOf()).toBe(seqAfterPrune)

    const missing = await api.session.removeItem({
      sessionID,
      messageID: assistant.id,
      itemID: "prt_neverexisted0000000000",
    })
    expect(missing.response?.status).toBe(404)
    expect(missing.error).toMatchObject({ _tag: "ItemNotFoundError", itemID: "prt_neverexisted0000000000" })
  })

  it("a throwing context hook is recorded on the assistant error with the plugin id and the hook", async () => {
    const { api, directory } = await start()
    const sessionID = (await api.session.create({ location: { directory } })).data!.data.id
    await api.session.prompt({ sessionID, prompt: { text: "please explode" } })
    await api.session.wait({ sessionID })
    const failed = (await api.session.messages({ sessionID })).data!.data.at(-1) as SessionMessageAssistant
    expect(failed.type).toBe("assistant")
    expect(failed.error).toEqual({
      type: "unknown",
      name: "Plugin.HookError",
      message: "kaboom",
      pluginID: "thrower",
      hook: "context",
    })
  })

  it("an erase with nothing to erase commits nothing", async () => {
    const { api, directory } = await start()
    const sessionID = (await api.session.create({ location: { directory } })).data!.data.id
    await api.session.prompt({ sessionID, prompt: { text: "hello" } })
    await api.session.wait({ sessionID })
    const seq = (await api.session.get({ sessionID })).data!.data.seq
    const erased = await api.session.erase({ sessionID })
    expect(erased.data).toEqual({ data: { sessionID, events: 0, fields: 0, bytes: 0 } })
    expect((await api.session.get({ sessionID })).data!.data.seq).toBe(seq)
  })
})
