/**
 * Transcript ownership for plugins (DESIGN): by default a plugin corrects and retracts only its own
 * messages; `{ "path", "transcript": "any" }` in the config's plugin list grants every message; HTTP/SDK
 * callers are the user and may do everything. A refusal rejects with `Session.ForbiddenError { sessionID,
 * messageID, pluginID, reason }` and commits nothing. Real server, SDK, plugins loaded from files.
 */
import type { Message } from "@opencode-ai/sdk"
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

const textOf = (message: Message) => message.parts.find((p) => p.type === "text")!

describe("transcript ownership for plugins", () => {
  it("refuses other messages without a grant (nothing changes), allows own notices, and the grant allows everything", async () => {
    const server = await startTestServer({
      config: localProviderConfig(provider.url, {
        plugin: [fixture("exposer.ts"), { path: fixture("granted.ts"), transcript: "any" }],
      }),
    })
    const plain = pluginContext(server.directory)
    const granted = grantedContext(server.directory)
    const sessionID = (await server.client.session.create({ body: { directory: server.directory } })).data!.id
    const prompt = (await server.client.session.prompt({ path: { sessionID }, body: { text: "user words" } })).data!
    await server.client.session.wait({ path: { sessionID } })
    const own = await plain.session.synthetic({ sessionID, text: "my notice", resume: false })
    const others = await granted.session.synthetic({ sessionID, text: "their notice", resume: false })
    const messages = (await server.client.message.list({ path: { sessionID } })).data!.items
    const user = messages.find((m) => m.id === prompt.messageID)!
    const assistant = messages.find((m) => m.type === "assistant")!
    const seq = (await server.client.session.get({ path: { sessionID } })).data!.seq

    // Without a grant: the user's prompt, the assistant's text and another plugin's notice are refused.
    for (const target of [user, assistant, messages.find((m) => m.id === others.messageID)!]) {
      const corrected = await rejection(
        plain.session.message.update({ sessionID, messageID: target.id, partID: textOf(target).id, text: "hijacked" }),
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
    expect((await server.client.session.get({ path: { sessionID } })).data!.seq).toBe(seq)
    expect((await server.client.message.list({ path: { sessionID } })).data!.items).toEqual(messages)

    // Its own notice it may always correct and retract.
    const ownMessage = messages.find((m) => m.id === own.messageID)!
    const fixed = await plain.session.message.update({
      sessionID,
      messageID: own.messageID,
      partID: textOf(ownMessage).id,
      text: "my fixed notice",
    })
    expect(textOf(fixed as Message)).toMatchObject({ text: "my fixed notice" })
    expect(await plain.session.message.remove({ sessionID, messageID: own.messageID })).toMatchObject({
      retracted: { by: `plugin:${PLUGIN_ID}` },
    })

    // With the grant: the user's prompt and assistant text can be corrected, the prompt retracted.
    const userFixed = await granted.session.message.update({
      sessionID,
      messageID: user.id,
      partID: textOf(user).id,
      text: "user words, corrected",
    })
    expect(textOf(userFixed as Message)).toMatchObject({ text: "user words, corrected" })
    await granted.session.message.update({
      sessionID,
      messageID: assistant.id,
      partID: textOf(assistant).id,
      text: "answer, corrected",
    })
    expect(await granted.session.message.remove({ sessionID, messageID: user.id })).toMatchObject({
      retracted: { by: `plugin:${GRANTED_ID}` },
    })

    // HTTP is the user: unaffected by plugin rights.
    const theirs = messages.find((m) => m.id === others.messageID)!
    const patched = await server.client.message.update({
      path: { sessionID, messageID: theirs.id, partID: textOf(theirs).id },
      body: { text: "fixed over HTTP" },
    })
    expect(patched.response?.status).toBe(200)
  })
})
