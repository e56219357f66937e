/**
 * Queued input is addressable (DESIGN, "Transcript ownership for plugins"): a prompt or notice admitted
 * while a turn runs can be read by id at once (`queued: true`, seq 0 until delivery) over HTTP and by a
 * plugin, and retracting it while the turn runs answers 200 and cancels its delivery: it never reaches the
 * model, the retraction is a recorded event every subscriber sees, a repeat is a harmless retry, and the
 * journal replays to the same rows. Real server, SDK, plugin from its file, the local provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { PLUGIN_ID, pluginContext } from "./fixtures/exposer.ts"
import { foldTranscript, listAll, subscribe } from "./support/e2e-events.ts"
import { fixture, localProviderConfig, requestText } from "./support/e2e-setup.ts"
import { replayFromJournal } from "./support/e2e-store.ts"
import { startTestServer } from "./support/server.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

const NOTICE = "queued notice [queued-notice-4e1d]"
const PROMPT = "queued prompt [queued-prompt-77ab]"

describe("queued input", () => {
  it("is readable by id during the turn, and retracting it cancels its delivery", async () => {
    const server = await startTestServer({
      config: localProviderConfig(provider.url, { plugin: [fixture("exposer.ts")], events: { persist: true } }),
    })
    const ctx = pluginContext(server.directory)
    const sessionID = (await server.client.session.create({ body: { directory: server.directory } })).data!.id
    const subscriber = await subscribe(server.client, sessionID)

    provider.enqueue({ text: "a long answer", hold: true })
    await server.client.session.prompt({ path: { sessionID }, body: { text: "start" } })
    await provider.held()
    const requestsDuringTurn = provider.requests.length

    // Admitted behind the running turn: a plugin notice that does not wake, and a prompt that would.
    const notice = await ctx.session.synthetic({ sessionID, text: NOTICE, resume: false })
    const prompt = (await server.client.session.prompt({ path: { sessionID }, body: { text: PROMPT } })).data!

    const readNotice = await server.client.message.get({ path: { sessionID, messageID: notice.messageID } })
    expect(readNotice.response?.status).toBe(200)
    expect(readNotice.data).toMatchObject({
      id: notice.messageID,
      type: "synthetic",
      origin: `plugin:${PLUGIN_ID}`,
      queued: true,
      seq: 0,
    })
    expect(readNotice.data!.parts).toEqual([expect.objectContaining({ type: "text", text: NOTICE })])
    expect(await ctx.session.message.get({ sessionID, messageID: prompt.messageID })).toMatchObject({
      id: prompt.messageID,
      type: "user",
      origin: "user",
      queued: true,
      seq: 0,
    })

    // Retract both while the turn still runs: 200, not 409.
    const retractedNotice = await ctx.session.message.remove({ sessionID, messageID: notice.messageID })
    expect(retractedNotice).toMatchObject({ id: notice.messageID, parts: [], retracted: { by: `plugin:${PLUGIN_ID}` } })
    expect(retractedNotice.seq).toBeGreaterThan(0)
    expect("queued" in retractedNotice).toBe(false)
    const retractedPrompt = await server.client.message.remove({ path: { sessionID, messageID: prompt.messageID } })
    expect(retractedPrompt.response?.status).toBe(200)
    expect(retractedPrompt.data).toMatchObject({
      id: prompt.messageID,
      parts: [],
      retracted: { by: "user" },
      placeholder: expect.any(String),
    })

    // A repeat is a harmless retry: 200, same message, no event.
    const seq = (await server.client.session.get({ path: { sessionID } })).data!.seq
    const again = await server.client.message.remove({ path: { sessionID, messageID: prompt.messageID } })
    expect(again.response?.status).toBe(200)
    expect(again.data).toEqual(retractedPrompt.data)
    expect((await server.client.session.get({ path: { sessionID } })).data!.seq).toBe(seq)

    provider.release()
    await server.client.session.wait({ path: { sessionID } })
    // The retracted prompt started no turn: no request beyond the held one.
    expect(provider.requests.length).toBe(requestsDuringTurn)

    // The next model request contains neither text.
    await server.client.session.prompt({ path: { sessionID }, body: { text: "after" } })
    await server.client.session.wait({ path: { sessionID } })
    const sent = requestText(provider.requests.at(-1))
    expect(sent).toContain("after")
    expect(sent).not.toContain("queued-notice-4e1d")
    expect(sent).not.toContain("queued-prompt-77ab")

    // Recorded: subscribers saw both retractions and fold the same transcript the server stores.
    const stored = await listAll(server.client, sessionID)
    const last = (await server.client.session.get({ path: { sessionID } })).data!.seq
    await subscriber.until(() => subscriber.durable(sessionID).at(-1)?.seq === last, "every event of the session")
    const retractions = subscriber.durable(sessionID).filter((e) => e.type === "session.message.retracted")
    expect(retractions.map((e) => (e.data as { messageID: string }).messageID)).toEqual([
      notice.messageID,
      prompt.messageID,
    ])
    expect(foldTranscript(subscriber.durable(sessionID))).toEqual(stored)
    expect(stored.filter((m) => m.retracted).map((m) => m.id)).toEqual([notice.messageID, prompt.messageID])
    subscriber.close()

    // Replay reproduces it.
    const { live, replayed } = replayFromJournal(server.database)
    expect(replayed).toEqual(live)
  })
})
