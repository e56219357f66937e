/**
 * Transcript ownership for plugins (docs/plugins.md, "Transcript ownership"): by default a plugin corrects and retracts only its own
 * messages; `{ "path", "transcript": "any" }` in the config's plugin list grants every message; HTTP/SDK
 * callers are the user and may do everything. A refusal rejects with `Session.ForbiddenError { sessionID,
 * messageID, pluginID, reason }` and commits nothing. Real server, SDK, plugins loaded from files.
 */
import type { SessionMessage, SessionMessageAssistant } from "@opencode-ai/sdk/v2"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { PLUGIN_ID, pluginContext } from "./fixtures/exposer.ts"
import { GRANTED_ID, grantedContext } from "./fixtures/granted.ts"
import { fixture, localProviderConfig } from "./support/e2e-setup.ts"
import { startTestServer } from "./support/server.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  )

/** What a correction of this message names: an assistant's text item, or nothing (a message's own text). */
const itemOf = (message: SessionMessage) =>
  message.type === "assistant" ? { itemID: message.content.find((i) => i.type === "text")!.id } : {}

/** The text a message shows: its own, or its assistant text item's. */
const textOf = (message: SessionMessage) =>
  message.type === "assistant"
    ? (message as SessionMessageAssistant).content.find((i) => i.type === "text")!.text
    : (message as { text: string }).text

describe("transcript ownership for plugins", () => {
  it("refuses other messages without a grant (nothing changes), allows own notices, and the grant allows everything", async () => {
    const server = await startTestServer({
      config: localProviderConfig(provider.url, {
        plugin: [fixture("exposer.ts"), { path: fixture("granted.ts"), transcript: "any" }],
      }),
    })
    const plain = pluginContext(server.directory)
    const granted = grantedContext(server.directory)
    const { api } = server
    const sessionID = (await api.session.create({ location: { directory: server.directory } })).data!.data.id
    const prompt = (await api.session.prompt({ sessionID, prompt: { text: "user words" } })).data!.data
    await api.session.wait({ sessionID })
    const own = await plain.session.synthetic({ sessionID, text: "my notice", resume: false })
    const others = await granted.session.synthetic({ sessionID, text: "their notice", resume: false })
    const messages = (await api.session.messages({ sessionID })).data!.data
    const user = messages.find((m) => m.id === prompt.id)!
    const assistant = messages.find((m) => m.type === "assistant")!
    const seq = (await api.session.get({ sessionID })).data!.data.seq

    // Without a grant: the user's prompt, the assistant's text and another plugin's notice are refused.
    for (const target of [user, assistant, messages.find((m) => m.id === others.id)!]) {
      const corrected = await rejection(
        plain.session.message.update({ sessionID, messageID: target.id, ...itemOf(target), text: "hijacked" }),
      )
      expect(corrected).toMatchObject({
        _tag: "Session.ForbiddenError",
        sessionID,
        messageID: target.id,
        pluginID: PLUGIN_ID,
        reason: expect.stringContaining(`origin is ${target.origin}`),
      })
      if (target.type !== "assistant") {
        const retracted = await rejection(plain.session.message.remove({ sessionID, messageID: target.id }))
        expect(retracted).toMatchObject({ _tag: "Session.ForbiddenError", messageID: target.id, pluginID: PLUGIN_ID })
      }
    }
    // Nothing changed: no event, same rows.
    expect((await api.session.get({ sessionID })).data!.data.seq).toBe(seq)
    expect((await api.session.messages({ sessionID })).data!.data).toEqual(messages)

    // Its own notice it may always correct and retract.
    const fixed = await plain.session.message.update({ sessionID, messageID: own.id, text: "my fixed notice" })
    expect(textOf(fixed as SessionMessage)).toBe("my fixed notice")
    expect(fixed).toMatchObject({ corrected: { by: `plugin:${PLUGIN_ID}` } })
    expect(await plain.session.message.remove({ sessionID, messageID: own.id })).toMatchObject({
      retracted: { by: `plugin:${PLUGIN_ID}` },
    })

    // With the grant: the user's prompt and assistant text can be corrected, the prompt retracted.
    const userFixed = await granted.session.message.update({
      sessionID,
      messageID: user.id,
      text: "user words, corrected",
    })
    expect(textOf(userFixed as SessionMessage)).toBe("user words, corrected")
    const answerFixed = await granted.session.message.update({
      sessionID,
      messageID: assistant.id,
      ...itemOf(assistant),
      text: "answer, corrected",
    })
    expect(textOf(answerFixed as SessionMessage)).toBe("answer, corrected")
    expect(await granted.session.message.remove({ sessionID, messageID: user.id })).toMatchObject({
      retracted: { by: `plugin:${GRANTED_ID}` },
    })

    // HTTP is the user: unaffected by plugin rights.
    const patched = await api.session.correct({ sessionID, messageID: others.id, text: "fixed over HTTP" })
    expect(patched.response?.status).toBe(200)
    expect(patched.data!.data).toMatchObject({ text: "fixed over HTTP", corrected: { by: "user" } })
  })
})
