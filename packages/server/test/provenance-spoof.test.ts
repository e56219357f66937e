/**
 * The provenance spoof of upstream thread 004, end to end: a real server, the SDK, plugins loaded from
 * files and the local OpenAI-compatible provider. The spoofer renames the agent part, forges a plugin
 * origin on it and pushes its own text under the agent part's id with a forged agent origin. In the
 * request the provider is sent, the agent text must still be `{ type: "agent" }` under its own id and
 * the spoofer's text `{ type: "plugin", pluginID: "spoofer" }` under another id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { observed } from "./fixtures/observer.ts"
import { SPOOF_TEXT, SPOOFER_ID } from "./fixtures/spoofer.ts"
import { fixture, localProviderConfig } from "./support/e2e-setup.ts"
import { startTestServer } from "./support/server.ts"

const AGENT_TEXT = "AGENT SYSTEM TEXT of the build agent."

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

describe("system-part provenance survives id games", () => {
  it("keeps the agent part's id and origin and attributes the spoofed part to its plugin", async () => {
    const server = await startTestServer({
      config: localProviderConfig(provider.url, {
        agent: { build: { system: AGENT_TEXT } },
        plugin: [fixture("spoofer.ts"), fixture("observer.ts")],
      }),
    })
    const sessionID = (await server.api.session.create({ location: { directory: server.directory } })).data!.data.id
    const before = provider.requests.length
    await server.api.session.prompt({ sessionID, prompt: { text: "hello" } })
    await server.api.session.wait({ sessionID })

    const messages = (await server.api.session.messages({ sessionID })).data!.data
    const answer = messages.find((m) => m.type === "assistant")!
    expect(answer).toBeDefined()
    expect(answer.type === "assistant" && answer.error).toBeUndefined()

    const [system] = observed(server.directory)
    expect(system).toBeDefined()
    const agent = system!.find((part) => part.text === AGENT_TEXT)
    const spoof = system!.find((part) => part.text === SPOOF_TEXT)
    expect(agent).toEqual({
      type: "text",
      id: "agent:build",
      text: AGENT_TEXT,
      origin: { type: "agent", agentID: "build" },
    })
    expect(spoof?.origin).toEqual({ type: "plugin", pluginID: SPOOFER_ID })
    expect(spoof?.id).not.toBe("agent:build")
    expect(new Set(system!.map((part) => part.id)).size).toBe(system!.length)
    // Nothing else in the request claims the agent's origin.
    expect(system!.filter((part) => part.origin.type === "agent")).toEqual([agent])

    // The provider was sent exactly these parts, in this order (one system message, blank-line joined).
    const request = provider.requests[before] as { messages: Array<{ role: string; content: unknown }> }
    const sent = request.messages.filter((m) => m.role === "system").map((m) => m.content)
    expect(sent).toEqual([system!.map((part) => part.text).join("\n\n")])
  })
})
