/**
 * Small contract fixes, through a real server, the SDK and plugins loaded from files:
 *   - removing a part that was already removed answers 200 with the current message and commits nothing
 *     (over HTTP and through a plugin), like retracting a retracted message; a part that never existed is
 *     still 404;
 *   - a hook failure recorded on the turn names the plugin and the hook;
 *   - an erase with nothing to erase commits nothing.
 */
import type { AssistantMessage } from "@opencode-ai/sdk"
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
  it("a second removal of a part is 200 with the message and no new event; a never-existing part is 404", async () => {
    const server = await start()
    const ctx = pluginContext(server.directory)
    const sessionID = (await server.client.session.create({ body: { directory: server.directory } })).data!.id
    provider.enqueue(
      { reasoning: "thinking hard", text: "calling", toolCalls: [{ name: "no_such_tool", arguments: {} }] },
      { text: "done" },
    )
    await server.client.session.prompt({ path: { sessionID }, body: { text: "go" } })
    await server.client.session.wait({ path: { sessionID } })
    const assistant = (await server.client.message.list({ path: { sessionID } })).data!.items.find(
      (m) => m.type === "assistant",
    )!
    const tool = assistant.parts.find((p) => p.type === "tool")!
    const reasoning = assistant.parts.find((p) => p.type === "reasoning")!

    const first = await server.client.part.remove({ path: { sessionID, messageID: assistant.id, partID: tool.id } })
    expect(first.response?.status).toBe(200)
    const seq = (await server.client.session.get({ path: { sessionID } })).data!.seq

    const again = await server.client.part.remove({ path: { sessionID, messageID: assistant.id, partID: tool.id } })
    expect(again.response?.status).toBe(200)
    expect(again.data).toEqual(first.data)
    expect((await server.client.session.get({ path: { sessionID } })).data!.seq).toBe(seq)

    // The same through a plugin, for a part removed by prune.
    await server.client.session.prune({ path: { sessionID }, body: { types: ["reasoning"] } })
    const seqAfterPrune = (await server.client.session.get({ path: { sessionID } })).data!.seq
    const viaPlugin = (await ctx.session.part.remove({
      sessionID,
      messageID: assistant.id,
      partID: reasoning.id,
    })) as AssistantMessage
    expect(viaPlugin.parts.map((p) => p.type)).toEqual(["text"])
    expect(viaPlugin.removedParts).toEqual([tool.id, reasoning.id])
    expect((await server.client.session.get({ path: { sessionID } })).data!.seq).toBe(seqAfterPrune)

    const missing = await server.client.part.remove({
      path: { sessionID, messageID: assistant.id, partID: "prt_neverexisted0000000000" },
    })
    expect(missing.response?.status).toBe(404)
    expect(missing.error).toMatchObject({ _tag: "PartNotFoundError" })
  })

  it("a throwing context hook is recorded on the assistant error with the plugin id and the hook", async () => {
    const server = await start()
    const sessionID = (await server.client.session.create({ body: { directory: server.directory } })).data!.id
    await server.client.session.prompt({ path: { sessionID }, body: { text: "please explode" } })
    await server.client.session.wait({ path: { sessionID } })
    const failed = (await server.client.message.list({ path: { sessionID } })).data!.items.at(-1) as AssistantMessage
    expect(failed.error).toEqual({ name: "Plugin.HookError", message: "kaboom", pluginID: "thrower", hook: "context" })
  })

  it("an erase with nothing to erase commits nothing", async () => {
    const server = await start()
    const sessionID = (await server.client.session.create({ body: { directory: server.directory } })).data!.id
    await server.client.session.prompt({ path: { sessionID }, body: { text: "hello" } })
    await server.client.session.wait({ path: { sessionID } })
    const seq = (await server.client.session.get({ path: { sessionID } })).data!.seq
    const erased = await server.client.session.erase({ path: { sessionID } })
    expect(erased.data).toEqual({ sessionID, events: 0, fields: 0, bytes: 0 })
    expect((await server.client.session.get({ path: { sessionID } })).data!.seq).toBe(seq)
  })
})
