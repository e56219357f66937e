/**
 * Queued input is addressable (docs/plugins.md, "Queued input is addressable at once"): a prompt or notice admitted
 * while a turn runs can be read by id at once (`queued: true`, seq 0 until delivery) over HTTP and by a
 * plugin, and retracting it while the turn runs answers 200 and cancels its delivery: it never reaches the
 * model, the retraction is a recorded event every subscriber sees, a repeat is a harmless retry, and the
 * journal replays to the same rows. Real server, SDK, plugin from its file, the local provider.
 */
import type { SessionMessage } from "@opencode-ai/sdk/v2"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { PLUGIN_ID, pluginContext } from "./fixtures/exposer.ts"
import { fixture, localProviderConfig, requestText } from "./support/e2e-setup.ts"
import { replayFromJournal } from "./support/e2e-store.ts"
import { eventLog, foldTranscript, isDurable } from "./support/event-log.ts"
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
      config: localProviderConfig(provider.url, { plugin: [fixture("exposer.ts")] }),
    })
    const { api } = server
    const ctx = pluginContext(server.directory)
    const sessionID = (await api.session.create({ location: { directory: server.directory } })).data!.data.id
    const subscriber = await eventLog(server.client, sessionID)

    provider.enqueue({ text: "a long answer", hold: true })
    await api.session.prompt({ sessionID, prompt: { text: "start" } })
    await provider.held()
    const requestsDuringTurn = provider.requests.length

    // Admitted behind the running turn: a plugin notice that does not wake, and a prompt that would.
    const notice = await ctx.session.synthetic({ sessionID, text: NOTICE, resume: false })
    expect(notice.queued).toBe(true)
    const prompt = (await api.session.prompt({ sessionID, prompt: { text: PROMPT } })).data!.data
    expect(prompt).toMatchObject({ sessionID, queued: true, prompt: { text: PROMPT } })

    const readNotice = await api.session.message({ sessionID, messageID: notice.id })
    expect(readNotice.response?.status).toBe(200)
    expect(readNotice.data!.data).toMatchObject({
      id: notice.id,
      type: "synthetic",
      origin: `plugin:${PLUGIN_ID}`,
      text: NOTICE,
      queued: true,
      seq: 0,
    })
    expect(await ctx.session.message.get({ sessionID, messageID: prompt.id })).toMatchObject({
      id: prompt.id,
      type: "user",
      origin: "user",
      text: PROMPT,
      queued: true,
      seq: 0,
    })

    // Retract both while the turn still runs: 200, not 409.
    const retractedNotice = await ctx.session.message.remove({ sessionID, messageID: notice.id })
    expect(retractedNotice).toMatchObject({ id: notice.id, retracted: { by: `plugin:${PLUGIN_ID}` } })
    expect(JSON.stringify(retractedNotice)).not.toContain("queued-notice-4e1d")
    expect(retractedNotice.seq).toBeGreaterThan(0)
    expect("queued" in retractedNotice).toBe(false)
    const retractedPrompt = await api.session.retract({ sessionID, messageID: prompt.id })
    expect(retractedPrompt.response?.status).toBe(200)
    expect(retractedPrompt.data!.data).toMatchObject({
      id: prompt.id,
      retracted: { by: "user" },
      placeholder: expect.any(String),
    })
    expect(JSON.stringify(retractedPrompt.data)).not.toContain("queued-prompt-77ab")

    // A repeat is a harmless retry: 200, same message, no event.
    const seq = (await api.session.get({ sessionID })).data!.data.seq
    const again = await api.session.retract({ sessionID, messageID: prompt.id })
    expect(again.response?.status).toBe(200)
    expect(again.data).toEqual(retractedPrompt.data)
    expect((await api.session.get({ sessionID })).data!.data.seq).toBe(seq)

    provider.release()
    await api.session.wait({ sessionID })
    // The retracted prompt started no turn: no request beyond the held one.
    expect(provider.requests.length).toBe(requestsDuringTurn)

    // The next model request contains neither text.
    await api.session.prompt({ sessionID, prompt: { text: "after" } })
    await api.session.wait({ sessionID })
    const sent = requestText(provider.requests.at(-1))
    expect(sent).toContain("after")
    expect(sent).not.toContain("queued-notice-4e1d")
    expect(sent).not.toContain("queued-prompt-77ab")

    // Recorded: subscribers saw both retractions and fold the same transcript the server stores.
    const stored: ReadonlyArray<SessionMessage> = (await api.session.messages({ sessionID, limit: 200 })).data!.data
    const last = (await api.session.get({ sessionID })).data!.data.seq
    await subscriber.next((e) => isDurable(e) && e.durable.seq === last, "every event of the session")
    const retractions = subscriber.events.filter((e) => e.type === "session.next.message.retracted")
    expect(retractions.map((e) => (e.data as { messageID: string }).messageID)).toEqual([notice.id, prompt.id])
    expect(foldTranscript(subscriber.events, sessionID)).toEqual(stored)
    expect(stored.filter((m) => m.retracted).map((m) => m.id)).toEqual([notice.id, prompt.id])
    subscriber.close()

    // Replay reproduces it.
    const { live, replayed } = replayFromJournal(server.database)
    expect(replayed).toEqual(live)
  })
})
