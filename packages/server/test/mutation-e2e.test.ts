/**
 * The transcript mutation contract, end to end: the real server (in-process `startServer`, or the
 * `opencode2 serve` CLI as a child process), the generated SDK over HTTP, a real plugin loaded from a file
 * through the `plugin` config list (`test/fixtures/exposer.ts`, which hands its `ctx` to the test), a live
 * SSE subscriber, and the local OpenAI-compatible provider, whose received request bodies are "the next
 * model request". Stored rows are read from the SQLite file itself.
 */
import type { ConfigData } from "@opencode-ai/core"
import { placeholderFor } from "@opencode-ai/core/session/mutation"
import type { PromisePluginContext } from "@opencode-ai/plugin"
import type { AssistantMessage, Message, OpencodeClient, ToolPart } from "@opencode-ai/sdk"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { PLUGIN_ID, REWRITE_PREFIX, SUBSTITUTE_PREFIX, pluginContext } from "./fixtures/exposer.ts"
import { MUTATION_EVENTS, countOf, foldTranscript, listAll, subscribe, type Subscriber } from "./support/e2e-events.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { fixture, localProviderConfig, requestText } from "./support/e2e-setup.ts"
import { journalOf, messageRowSize, replayFromJournal, storeSnapshot } from "./support/e2e-store.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

const PLUGIN_ORIGIN = `plugin:${PLUGIN_ID}`

interface Harness {
  readonly client: OpencodeClient
  readonly ctx: PromisePluginContext
  readonly directory: string
  readonly database: string
  readonly url: string
}

/** An in-process server with the journal on, the local provider, and the exposer plugin loaded from its file. */
const start = async (extra: ConfigData = {}): Promise<Harness> => {
  const server = await startTestServer({
    // The plugin holds the transcript grant, so it may apply every mutation (ownership has its own test).
    config: localProviderConfig(provider.url, {
      plugin: [{ path: fixture("exposer.ts"), transcript: "any" }],
      events: { persist: true },
      ...extra,
    }),
  })
  return { ...server, ctx: pluginContext(server.directory) }
}

const createSession = async (h: Harness) => {
  const created = await h.client.session.create({ body: { directory: h.directory } })
  expect(created.error).toBeUndefined()
  return created.data!.id
}

const waitIdle = async (client: OpencodeClient, sessionID: string) => {
  const waited = await client.session.wait({ path: { sessionID } })
  expect(waited.error).toBeUndefined()
}

/** Prompts over HTTP, waits for the turn, and returns the request bodies the provider received for it. */
const promptAndCapture = async (h: Harness, sessionID: string, text: string) => {
  const from = provider.requests.length
  const admitted = await h.client.session.prompt({ path: { sessionID }, body: { text } })
  expect(admitted.error).toBeUndefined()
  await waitIdle(h.client, sessionID)
  const requests = provider.requests.slice(from)
  expect(requests.length).toBeGreaterThan(0)
  return requests
}

/**
 * The four views must agree: SDK get of each message, SDK list, the subscriber's own fold of the events it
 * received, and the next model request. `present` must appear in all of them, `absent` in none.
 */
const expectEverywhere = async (
  h: Harness,
  sessionID: string,
  subscriber: Subscriber,
  present: ReadonlyArray<string>,
  absent: ReadonlyArray<string>,
  /** Index into `subscriber.events` of the first event after the mutation: none from there on carries `absent`. */
  since: number,
) => {
  const listed = await listAll(h.client, sessionID)
  const listedText = JSON.stringify(listed)
  for (const message of listed) {
    const got = await h.client.message.get({ path: { sessionID, messageID: message.id } })
    expect(got.data).toEqual(message)
  }
  // The subscriber has seen everything up to the session's current seq, and its view equals the store.
  const seq = (await h.client.session.get({ path: { sessionID } })).data!.seq
  await subscriber.until(
    (events) => events.some((e) => "seq" in e && e.sessionID === sessionID && e.seq === seq),
    `seq ${seq}`,
  )
  expect(foldTranscript(subscriber.durable(sessionID))).toEqual(listed)

  const requests = await promptAndCapture(h, sessionID, `next request after a mutation (${present.length})`)
  const sent = requestText(requests[0])
  for (const text of present) {
    expect(listedText, `list has ${text}`).toContain(text)
    expect(sent, `the next model request has ${text}`).toContain(text)
  }
  for (const text of absent) {
    expect(listedText, `list lacks ${text}`).not.toContain(text)
    expect(sent, `the next model request lacks ${text}`).not.toContain(text)
  }
  // The subscriber's view after that turn still equals the store, and nothing it received since the
  // mutation (the mutation event, the next turn's events and deltas) carries the old content.
  const after = await listAll(h.client, sessionID)
  const last = (await h.client.session.get({ path: { sessionID } })).data!.seq
  await subscriber.until(
    (events) => events.some((e) => "seq" in e && e.sessionID === sessionID && e.seq === last),
    `seq ${last}`,
  )
  expect(foldTranscript(subscriber.durable(sessionID))).toEqual(after)
  const received = JSON.stringify(subscriber.events.slice(since))
  for (const text of absent) expect(received, `events since the mutation lack ${text}`).not.toContain(text)
}

const textPart = (message: Message) => {
  const part = message.parts.find((p) => p.type === "text")
  if (!part) throw new Error(`message ${message.id} has no text part`)
  return part
}

describe("mutation contract end to end (server + SDK + plugin from file + SSE + provider)", () => {
  it("1. corrects notices admitted through ctx.session.synthetic and ctx.session.prompt, and via HTTP PATCH", async () => {
    const h = await start()
    const sessionID = await createSession(h)
    const subscriber = await subscribe(h.client, sessionID)
    const OLD_NOTICE = "notice: the nightly build is red [old-notice-7f3a]"
    const OLD_PROMPT = "reminder: deploy the hotfix at five [old-prompt-91c2]"

    const notice = await h.ctx.session.synthetic({ sessionID, text: OLD_NOTICE, description: "build status" })
    await h.ctx.session.wait({ sessionID })
    const prompted = await h.ctx.session.prompt({ sessionID, text: OLD_PROMPT })
    await h.ctx.session.wait({ sessionID })
    // Before the correction the model saw both texts.
    const seen = requestText(provider.requests.at(-1))
    expect(seen).toContain(OLD_NOTICE)
    expect(seen).toContain(OLD_PROMPT)

    const noticeBefore = await h.ctx.session.message.get({ sessionID, messageID: notice.messageID })
    const promptBefore = await h.ctx.session.message.get({ sessionID, messageID: prompted.messageID })
    expect(noticeBefore).toMatchObject({ type: "synthetic", origin: PLUGIN_ORIGIN, description: "build status" })
    expect(promptBefore).toMatchObject({ type: "user", origin: PLUGIN_ORIGIN })

    // Correct both through the plugin API: same ids, role, seq and origin; only the text changes.
    const mark = subscriber.events.length
    const NEW_NOTICE = "notice: the nightly build is green again [new-notice-c0de]"
    const NEW_PROMPT = "reminder: the hotfix is deployed, nothing to do [new-prompt-5eed]"
    const noticePart = textPart(noticeBefore as Message)
    const promptPart = textPart(promptBefore as Message)
    const correctedNotice = await h.ctx.session.message.update({
      sessionID,
      messageID: notice.messageID,
      partID: noticePart.id,
      text: NEW_NOTICE,
    })
    expect(correctedNotice).toEqual({ ...noticeBefore, parts: [{ ...noticePart, text: NEW_NOTICE }] })
    const correctedPrompt = await h.ctx.session.message.update({
      sessionID,
      messageID: prompted.messageID,
      partID: promptPart.id,
      text: NEW_PROMPT,
    })
    expect(correctedPrompt).toEqual({ ...promptBefore, parts: [{ ...promptPart, text: NEW_PROMPT }] })

    // The subscriber received both corrections, attributed to the plugin, carrying only the new text.
    await subscriber.until(
      () => countOf(subscriber.events, "session.message.corrected", sessionID) === 2,
      "two corrections",
    )
    expect(
      subscriber
        .durable(sessionID)
        .filter((e) => e.type === "session.message.corrected")
        .map((e) => e.data),
    ).toEqual([
      { messageID: notice.messageID, partID: noticePart.id, text: NEW_NOTICE, by: PLUGIN_ORIGIN },
      { messageID: prompted.messageID, partID: promptPart.id, text: NEW_PROMPT, by: PLUGIN_ORIGIN },
    ])
    await expectEverywhere(h, sessionID, subscriber, [NEW_NOTICE, NEW_PROMPT], [OLD_NOTICE, OLD_PROMPT], mark)

    // Correct the notice again, over HTTP PATCH through the SDK: attributed to the user.
    const NEWEST_NOTICE = "notice: build green, release tagged [newest-notice-ab12]"
    const patchMark = subscriber.events.length
    const patched = await h.client.message.update({
      path: { sessionID, messageID: notice.messageID, partID: noticePart.id },
      body: { text: NEWEST_NOTICE },
    })
    expect(patched.response?.status).toBe(200)
    expect(patched.data).toEqual({ ...noticeBefore, parts: [{ ...noticePart, text: NEWEST_NOTICE }] })
    const patchEvent = await subscriber.next(
      (e) => e.type === "session.message.corrected" && (e.data as { text: string }).text === NEWEST_NOTICE,
      "the PATCH correction",
    )
    expect(patchEvent.data).toEqual({
      messageID: notice.messageID,
      partID: noticePart.id,
      text: NEWEST_NOTICE,
      by: "user",
    })
    await expectEverywhere(
      h,
      sessionID,
      subscriber,
      [NEWEST_NOTICE, NEW_PROMPT],
      [OLD_NOTICE, OLD_PROMPT, NEW_NOTICE],
      patchMark,
    )
    subscriber.close()
  })

  it("2. retracts notices (plugin and HTTP DELETE): id and seq kept, host placeholder, nothing reaches the model", async () => {
    const h = await start()
    const sessionID = await createSession(h)
    const subscriber = await subscribe(h.client, sessionID)
    // The plugin's synthetic hook rewrites this notice, so what is stored is plugin-written text.
    const ORIGINAL = `${REWRITE_PREFIX} standup moved to 10:30 [stale-notice-4d2e]`
    const OTHER = "notice: the staging database is read-only today [other-notice-88aa]"
    const first = await h.ctx.session.synthetic({ sessionID, text: ORIGINAL })
    await h.ctx.session.wait({ sessionID })
    const second = await h.ctx.session.synthetic({ sessionID, text: OTHER })
    await h.ctx.session.wait({ sessionID })
    const firstBefore = await h.ctx.session.message.get({ sessionID, messageID: first.messageID })
    const secondBefore = await h.ctx.session.message.get({ sessionID, messageID: second.messageID })
    const substitute = textPart(firstBefore as Message).text
    expect(substitute.startsWith(SUBSTITUTE_PREFIX)).toBe(true)
    // Before the retraction the model saw the plugin-written substitute.
    expect(requestText(provider.requests.at(-1))).toContain(substitute)

    const mark = subscriber.events.length
    const retracted = await h.ctx.session.message.remove({ sessionID, messageID: first.messageID })
    expect(retracted).toEqual({
      ...firstBefore,
      parts: [],
      retracted: { time: expect.any(Number), by: PLUGIN_ORIGIN },
      placeholder: placeholderFor(firstBefore as never),
    })
    expect(retracted.placeholder).not.toContain("stale-notice-4d2e")
    expect(retracted.placeholder).not.toContain(SUBSTITUTE_PREFIX)

    const removed = await h.client.message.remove({ path: { sessionID, messageID: second.messageID } })
    expect(removed.response?.status).toBe(200)
    expect(removed.data).toEqual({
      ...secondBefore,
      parts: [],
      retracted: { time: expect.any(Number), by: "user" },
      placeholder: placeholderFor(secondBefore as never),
    })

    // The subscriber saw both retractions with the host placeholder.
    await subscriber.until(
      () => countOf(subscriber.events, "session.message.retracted", sessionID) === 2,
      "two retractions",
    )
    expect(
      subscriber
        .durable(sessionID)
        .filter((e) => e.type === "session.message.retracted")
        .map((e) => e.data),
    ).toEqual([
      { messageID: first.messageID, placeholder: retracted.placeholder, by: PLUGIN_ORIGIN },
      { messageID: second.messageID, placeholder: removed.data!.placeholder, by: "user" },
    ])
    // get and list show the placeholder with the original id and seq.
    for (const [before, after] of [
      [firstBefore, retracted],
      [secondBefore, removed.data!],
    ] as const) {
      const got = (await h.client.message.get({ path: { sessionID, messageID: before.id } })).data!
      expect(got).toMatchObject({ id: before.id, seq: before.seq, type: "synthetic", origin: PLUGIN_ORIGIN, parts: [] })
      expect(got.placeholder).toBe(after.placeholder)
    }
    const gone = ["stale-notice-4d2e", REWRITE_PREFIX, SUBSTITUTE_PREFIX, "other-notice-88aa"]
    await expectEverywhere(h, sessionID, subscriber, [], gone, mark)
    // Retracting again is harmless: same message, no new event.
    const seq = (await h.client.session.get({ path: { sessionID } })).data!.seq
    expect(await h.ctx.session.message.remove({ sessionID, messageID: first.messageID })).toEqual(retracted)
    expect((await h.client.session.get({ path: { sessionID } })).data!.seq).toBe(seq)
    subscriber.close()
  })

  it("3. removes a tool part (HTTP DELETE) and a reasoning part (plugin): gone from the next request, row shrinks", async () => {
    const h = await start()
    const directory = tempDir()
    const FILE_MARKER = "file-content-marker-31337"
    writeFileSync(
      join(directory, "big.txt"),
      Array.from({ length: 400 }, (_, i) => `line ${i} ${FILE_MARKER} lorem ipsum dolor sit amet`).join("\n"),
    )
    const REASONING = `deliberating [reasoning-marker-0b5e] ${"weighing the options carefully; ".repeat(200)}`
    const session = (await h.client.session.create({ body: { directory } })).data!
    const sessionID = session.id
    const subscriber = await subscribe(h.client, sessionID)
    provider.enqueue(
      { reasoning: REASONING, toolCalls: [{ id: "call_big_read", name: "read", arguments: { path: "big.txt" } }] },
      { text: "the file has 400 lines [final-answer-2c4f]" },
    )
    const requests = await promptAndCapture(h, sessionID, "read big.txt and summarize")
    expect(requests).toHaveLength(2)
    // The tool loop's second request carried the reasoning, the call and the result.
    const continued = requestText(requests[1])
    expect(continued).toContain("reasoning-marker-0b5e")
    expect(continued).toContain("call_big_read")
    expect(continued).toContain(FILE_MARKER)

    const messages = await listAll(h.client, sessionID)
    const worker = messages.find(
      (m): m is AssistantMessage => m.type === "assistant" && m.parts.some((p) => p.type === "tool"),
    )!
    expect(worker.time.completed).toBeDefined()
    const reasoning = worker.parts.find((p) => p.type === "reasoning")!
    const tool = worker.parts.find((p): p is ToolPart => p.type === "tool")!
    expect(tool).toMatchObject({ callID: "call_big_read", tool: "read", state: "completed" })
    expect(tool.output).toContain(FILE_MARKER)

    const mark = subscriber.events.length
    const size0 = messageRowSize(h.database, worker.id)
    const removedReasoning = await h.ctx.session.part.remove({ sessionID, messageID: worker.id, partID: reasoning.id })
    expect(removedReasoning).toEqual({ ...worker, parts: [tool], removedParts: [reasoning.id] })
    const size1 = messageRowSize(h.database, worker.id)
    // The row keeps only the removed part's id (`removedParts`, so a repeated removal is a retry).
    const idBytes = (...ids: Array<string>) => JSON.stringify({ removedParts: ids }).length
    const reasoningBytes = new TextEncoder().encode(JSON.stringify(reasoning)).length
    expect(size0.bytes - size1.bytes).toBeGreaterThanOrEqual(reasoningBytes - idBytes(reasoning.id))
    expect(size0.chars - size1.chars).toBeGreaterThanOrEqual(JSON.stringify(reasoning).length - idBytes(reasoning.id))

    const removedTool = await h.client.part.remove({ path: { sessionID, messageID: worker.id, partID: tool.id } })
    expect(removedTool.response?.status).toBe(200)
    expect(removedTool.data).toEqual({ ...worker, parts: [], removedParts: [reasoning.id, tool.id] })
    const size2 = messageRowSize(h.database, worker.id)
    const toolBytes = new TextEncoder().encode(JSON.stringify(tool)).length
    expect(size1.bytes - size2.bytes).toBeGreaterThanOrEqual(toolBytes - JSON.stringify(tool.id).length - 1)
    expect(size1.chars - size2.chars).toBeGreaterThanOrEqual(
      JSON.stringify(tool).length - JSON.stringify(tool.id).length - 1,
    )
    expect(size2.bytes).toBeLessThan(2_000)

    await subscriber.until(() => countOf(subscriber.events, "session.part.removed", sessionID) === 2, "two removals")
    expect(
      subscriber
        .durable(sessionID)
        .filter((e) => e.type === "session.part.removed")
        .map((e) => e.data),
    ).toEqual([
      { messageID: worker.id, partID: reasoning.id, by: PLUGIN_ORIGIN },
      { messageID: worker.id, partID: tool.id, by: "user" },
    ])
    const gone = ["reasoning-marker-0b5e", "call_big_read", FILE_MARKER]
    await expectEverywhere(h, sessionID, subscriber, ["final-answer-2c4f"], gone, mark)
    subscriber.close()
  })

  it("4. reopens after the server PROCESS restarts: identical transcript; the journal replays into identical rows", async () => {
    const { dir, database, config } = childFiles({ plugin: [fixture("exposer.ts")] })
    const first = await spawnServe({ database, config, cwd: dir })
    const client = first.client
    expect((await client.plugin.list()).data).toEqual([
      { id: PLUGIN_ID, source: fixture("exposer.ts"), status: "loaded", flavour: "promise" },
    ])
    const sessionID = (await client.session.create({ body: { directory: dir, title: "reopen" } })).data!.id
    provider.enqueue(
      {
        reasoning: "thinking about the tree [reasoning-r4]",
        toolCalls: [{ id: "call_r4", name: "list", arguments: {} }],
      },
      { text: "the directory is listed [answer-r4]" },
    )
    const prompt = (
      await client.session.prompt({ path: { sessionID }, body: { text: "list the directory [prompt-r4]" } })
    ).data!
    await waitIdle(client, sessionID)
    const stale = `${REWRITE_PREFIX} stale [notice-r4]`
    const notice = (await client.session.synthetic({ path: { sessionID }, body: { text: stale, resume: false } })).data!
    await client.session.synthetic({ path: { sessionID }, body: { text: "another notice [notice2-r4]" } })
    await waitIdle(client, sessionID)

    // Every kind of mutation, over HTTP.
    const messages = await listAll(client, sessionID)
    const user = messages.find((m) => m.id === prompt.messageID)!
    const worker = messages.find((m) => m.type === "assistant" && m.parts.some((p) => p.type === "tool"))!
    const answer = messages.find((m) => m.type === "assistant" && JSON.stringify(m).includes("answer-r4"))!
    const ok = (result: { error?: unknown; response?: Response }) => {
      expect(result.error).toBeUndefined()
      expect(result.response?.status).toBe(200)
    }
    const correct = (message: Message, text: string) =>
      client.message.update({
        path: { sessionID, messageID: message.id, partID: textPart(message).id },
        body: { text },
      })
    ok(await correct(user, "corrected prompt [fixed-r4]"))
    ok(await correct(answer, "corrected answer [fixed-a4]"))
    ok(await client.message.remove({ path: { sessionID, messageID: notice.messageID } }))
    for (const part of worker.parts)
      ok(await client.part.remove({ path: { sessionID, messageID: worker.id, partID: part.id } }))

    const before = await listAll(client, sessionID)
    const sessionBefore = (await client.session.get({ path: { sessionID } })).data!
    expect(sessionBefore.status).toBe("idle")
    // A crash after the commits: nothing is lost.
    await first.kill()

    const second = await spawnServe({ database, config, cwd: dir })
    const after = await listAll(second.client, sessionID)
    expect(after).toEqual(before)
    expect((await second.client.session.get({ path: { sessionID } })).data).toEqual(sessionBefore)
    for (const message of before) {
      expect((await second.client.message.get({ path: { sessionID, messageID: message.id } })).data).toEqual(message)
    }
    expect(JSON.stringify(after)).not.toMatch(/prompt-r4|notice-r4|reasoning-r4|call_r4|answer-r4/)
    expect(await second.stop()).toBe(0)

    // With the journal on, replaying it into an empty database gives the same rows.
    const journal = journalOf(database, sessionID)
    const types = new Set(journal.map((e) => e.type))
    for (const type of MUTATION_EVENTS) expect(types).toContain(type)
    expect(journal.map((e) => e.seq)).toEqual(journal.map((_, i) => i + 1))
    const { applied, live, replayed } = replayFromJournal(database)
    expect(applied).toBe(journal.length)
    expect(replayed).toEqual(live)
    expect((live.session_message as Array<unknown>).length).toBe(before.length)
  })

  it("5. busy: every operation is 409 SessionBusyError over HTTP, Session.BusyError in a plugin; nothing changes", async () => {
    const h = await start()
    const sessionID = await createSession(h)
    const seeded = await seedTranscript(h, sessionID)
    const subscriber = await subscribe(h.client, sessionID)

    provider.enqueue({ text: "an answer held mid-stream", hold: true })
    await h.client.session.prompt({ path: { sessionID }, body: { text: "start a long turn" } })
    await provider.held()
    expect((await h.client.session.get({ path: { sessionID } })).data!.status).toBe("busy")
    const inflight = (await listAll(h.client, sessionID)).at(-1) as AssistantMessage
    expect(inflight.type).toBe("assistant")
    expect(inflight.time.completed).toBeUndefined()

    const before = storeSnapshot(h.database)
    const operations = busyOperations(targetsOf(seeded, inflight))
    for (const op of operations) {
      const result = await viaHttp(h.client, sessionID, op)
      expect(result.response?.status, op.name).toBe(409)
      expect(result.error, op.name).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
    }
    for (const op of operations) {
      const error = await rejection(viaPlugin(h.ctx, sessionID, op))
      expect(error, op.name).toEqual({ _tag: "Session.BusyError", sessionID, message: expect.any(String) })
      expect(Object.getPrototypeOf(error), `${op.name}: a plain object`).toBe(Object.prototype)
    }
    // Journal and projection rows are exactly what they were: a busy rejection commits nothing.
    expect(storeSnapshot(h.database)).toEqual(before)
    expect(subscriber.durable(sessionID).filter((e) => MUTATION_EVENTS.has(e.type))).toEqual([])

    provider.release()
    await waitIdle(h.client, sessionID)
    subscriber.close()
  })

  it("6. idle: unknown message 404 MessageNotFoundError, unknown part 404 PartNotFoundError, wrong target 400 InvalidTargetError", async () => {
    const h = await start()
    const sessionID = await createSession(h)
    const { user, notice, worker, answer } = await seedTranscript(h, sessionID)
    const userText = textPart(user)
    const answerText = textPart(answer)
    const reasoning = worker.parts.find((p) => p.type === "reasoning")!
    const tool = worker.parts.find((p) => p.type === "tool")!

    const elsewhere = await createSession(h)
    const foreign = await h.ctx.session.synthetic({ sessionID: elsewhere, text: "a notice elsewhere", resume: false })
    const before = storeSnapshot(h.database)

    // Unknown message: every read and mutation, both flavours.
    const missing = { sessionID, messageID: "msg_doesNotExist" }
    for (const result of [
      await h.client.message.get({ path: missing }),
      await h.client.message.update({ path: { ...missing, partID: userText.id }, body: { text: "x" } }),
      await h.client.message.remove({ path: missing }),
      await h.client.part.remove({ path: { ...missing, partID: tool.id } }),
    ]) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual({ _tag: "MessageNotFoundError", ...missing, message: expect.any(String) })
    }
    for (const call of [
      () => h.ctx.session.message.get(missing),
      () => h.ctx.session.message.update({ ...missing, partID: userText.id, text: "x" }),
      () => h.ctx.session.message.remove(missing),
      () => h.ctx.session.part.remove({ ...missing, partID: tool.id }),
    ]) {
      expect(await rejection(call())).toEqual({
        _tag: "Session.MessageNotFoundError",
        ...missing,
        message: expect.any(String),
      })
    }

    // A message that exists, but in another session, is unknown here.
    const crossed = { sessionID, messageID: foreign.messageID }
    const crossedResult = await h.client.message.remove({ path: crossed })
    expect(crossedResult.response?.status).toBe(404)
    expect(crossedResult.error).toEqual({ _tag: "MessageNotFoundError", ...crossed, message: expect.any(String) })
    expect(await rejection(h.ctx.session.message.remove(crossed))).toEqual({
      _tag: "Session.MessageNotFoundError",
      ...crossed,
      message: expect.any(String),
    })

    // Unknown part of an existing message.
    const noPart = (messageID: string) => ({ sessionID, messageID, partID: "prt_doesNotExist" })
    for (const result of [
      await h.client.message.update({ path: noPart(user.id), body: { text: "x" } }),
      await h.client.part.remove({ path: noPart(worker.id) }),
    ]) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toMatchObject({ _tag: "PartNotFoundError", sessionID, partID: "prt_doesNotExist" })
    }
    expect(await rejection(h.ctx.session.message.update({ ...noPart(answer.id), text: "x" }))).toEqual({
      _tag: "Session.PartNotFoundError",
      ...noPart(answer.id),
      message: expect.any(String),
    })
    expect(await rejection(h.ctx.session.part.remove(noPart(worker.id)))).toEqual({
      _tag: "Session.PartNotFoundError",
      ...noPart(worker.id),
      message: expect.any(String),
    })

    // Wrong targets: the operation does not apply, and says why.
    const invalid = (messageID: string, partID?: string) => ({
      _tag: "InvalidTargetError",
      sessionID,
      messageID,
      ...(partID ? { partID } : {}),
      reason: expect.stringMatching(/\S/),
      message: expect.any(String),
    })
    const wrong: Array<[string, () => Promise<{ error?: unknown; response?: Response }>, ReturnType<typeof invalid>]> =
      [
        [
          "retract an assistant message",
          () => h.client.message.remove({ path: { sessionID, messageID: answer.id } }),
          invalid(answer.id),
        ],
        [
          "correct a tool part",
          () =>
            h.client.message.update({
              path: { sessionID, messageID: worker.id, partID: tool.id },
              body: { text: "x" },
            }),
          invalid(worker.id, tool.id),
        ],
        [
          "correct a reasoning part",
          () =>
            h.client.message.update({
              path: { sessionID, messageID: worker.id, partID: reasoning.id },
              body: { text: "x" },
            }),
          invalid(worker.id, reasoning.id),
        ],
        [
          "remove a text part",
          () => h.client.part.remove({ path: { sessionID, messageID: answer.id, partID: answerText.id } }),
          invalid(answer.id, answerText.id),
        ],
        [
          "remove a part of a user message",
          () => h.client.part.remove({ path: { sessionID, messageID: user.id, partID: userText.id } }),
          invalid(user.id, userText.id),
        ],
        [
          "remove a part of a notice",
          () => h.client.part.remove({ path: { sessionID, messageID: notice.id, partID: textPart(notice).id } }),
          invalid(notice.id, textPart(notice).id),
        ],
      ]
    for (const [name, call, body] of wrong) {
      const result = await call()
      expect(result.response?.status, name).toBe(400)
      expect(result.error, name).toEqual(body)
    }
    const plugin = (body: ReturnType<typeof invalid>) => ({ ...body, _tag: "Session.InvalidTargetError" })
    const wrongInPlugin: Array<[string, () => Promise<unknown>, ReturnType<typeof invalid>]> = [
      [
        "retract an assistant message",
        () => h.ctx.session.message.remove({ sessionID, messageID: worker.id }),
        invalid(worker.id),
      ],
      [
        "correct a tool part",
        () => h.ctx.session.message.update({ sessionID, messageID: worker.id, partID: tool.id, text: "x" }),
        invalid(worker.id, tool.id),
      ],
      [
        "remove a text part",
        () => h.ctx.session.part.remove({ sessionID, messageID: answer.id, partID: answerText.id }),
        invalid(answer.id, answerText.id),
      ],
      [
        "remove a part of a notice",
        () => h.ctx.session.part.remove({ sessionID, messageID: notice.id, partID: textPart(notice).id }),
        invalid(notice.id, textPart(notice).id),
      ],
    ]
    for (const [name, call, body] of wrongInPlugin) expect(await rejection(call()), name).toEqual(plugin(body))
    // None of the refusals changed a byte.
    expect(storeSnapshot(h.database)).toEqual(before)

    // A retracted message's text can no longer be corrected (it has no content left to correct).
    await h.ctx.session.message.remove({ sessionID, messageID: notice.id })
    const afterRetraction = await h.client.message.update({
      path: { sessionID, messageID: notice.id, partID: textPart(notice).id },
      body: { text: "x" },
    })
    expect(afterRetraction.response?.status).toBe(400)
    expect(afterRetraction.error).toEqual(invalid(notice.id, textPart(notice).id))
  })

  it("6b. a turn a crash left is busy (suspended) until interrupted; an unfinished answer is never a target", async () => {
    const { dir, database, config } = childFiles()
    const first = await spawnServe({ database, config, cwd: dir })
    const sessionID = (await first.client.session.create({ body: { directory: dir } })).data!.id
    provider.enqueue({ text: "a long answer that never finishes", hold: true })
    const aborted = provider.aborted
    const prompt = (await first.client.session.prompt({ path: { sessionID }, body: { text: "start something long" } }))
      .data!
    await provider.held()
    await first.kill()
    await provider.waitForAborted(aborted + 1)

    const second = await spawnServe({ database, config, cwd: dir, args: ["--no-resume"] })
    const client = second.client
    expect((await client.session.get({ path: { sessionID } })).data!.status).toBe("suspended")
    const suspended = await listAll(client, sessionID)
    const user = suspended.find((m) => m.id === prompt.messageID)!
    // The answer that was streaming when the process died.
    const cutOff = suspended.at(-1) as AssistantMessage
    expect(cutOff).toMatchObject({ type: "assistant", parts: [] })

    // Suspended counts as busy: every mutation is refused and nothing changes.
    const before = storeSnapshot(database)
    for (const result of [
      await client.message.update({
        path: { sessionID, messageID: user.id, partID: textPart(user).id },
        body: { text: "x" },
      }),
      await client.message.remove({ path: { sessionID, messageID: user.id } }),
      await client.part.remove({ path: { sessionID, messageID: cutOff.id, partID: "prt_any" } }),
      await client.message.update({
        path: { sessionID, messageID: cutOff.id, partID: "prt_any" },
        body: { text: "x" },
      }),
    ]) {
      expect(result.response?.status).toBe(409)
      expect(result.error).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
    }
    expect(storeSnapshot(database)).toEqual(before)

    // Interrupting releases the claim; the session is idle and mutable again.
    expect((await client.session.interrupt({ path: { sessionID } })).error).toBeUndefined()
    expect((await client.session.get({ path: { sessionID } })).data!.status).toBe("idle")
    const corrected = await client.message.update({
      path: { sessionID, messageID: user.id, partID: textPart(user).id },
      body: { text: "start something shorter" },
    })
    expect(corrected.data).toEqual({ ...user, parts: [{ ...textPart(user), text: "start something shorter" }] })

    // Whatever the host records for the cut-off answer, an assistant message that is not completed is
    // never mutated: correcting or removing its parts is 400 InvalidTargetError (the documented rule).
    for (const message of await listAll(client, sessionID)) {
      if (message.type !== "assistant" || message.time.completed !== undefined) continue
      const path = { sessionID, messageID: message.id, partID: "prt_any" }
      const refused = {
        _tag: "InvalidTargetError",
        messageID: message.id,
        reason: expect.stringMatching(/not completed/),
      }
      const update = await client.message.update({ path, body: { text: "x" } })
      expect(update.response?.status).toBe(400)
      expect(update.error).toMatchObject(refused)
      const remove = await client.part.remove({ path })
      expect(remove.response?.status).toBe(400)
      expect(remove.error).toMatchObject(refused)
    }
    expect(await second.stop()).toBe(0)
  })

  it("7. busy is not a reservation: a retry after idle succeeds on the same ids, or is busy again if a new turn won", async () => {
    const h = await start()
    const sessionID = await createSession(h)
    const { user, notice } = await seedTranscript(h, sessionID)
    const subscriber = await subscribe(h.client, sessionID)

    // (a) A plugin retrying as the docs show: busy, wait for idle, retry; the retry lands on the same ids.
    provider.enqueue({ text: "held once", hold: true })
    await h.client.session.prompt({ path: { sessionID }, body: { text: "turn one" } })
    await provider.held()
    let attempts = 0
    let firstRefusal: () => void = () => {}
    const refused = new Promise<void>((resolve) => (firstRefusal = resolve))
    const retract = async (attempt = 0): Promise<unknown> => {
      attempts++
      try {
        return await h.ctx.session.message.remove({ sessionID, messageID: notice.id })
      } catch (error) {
        if ((error as { _tag?: string })._tag !== "Session.BusyError" || attempt > 8) throw error
        firstRefusal()
        await h.ctx.session.wait({ sessionID })
        return retract(attempt + 1)
      }
    }
    const retried = retract()
    await refused
    provider.release()
    const result = (await retried) as Message
    expect(attempts).toBe(2)
    expect(result).toMatchObject({
      id: notice.id,
      seq: notice.seq,
      type: "synthetic",
      parts: [],
      placeholder: expect.any(String),
    })

    // (b) Over HTTP: busy; the turn ends but a queued prompt's turn starts in the same commit, so the retry is
    // busy again; once that turn is over too, the retry succeeds on the same message and part.
    provider.enqueue({ text: "held A", hold: true }, { text: "held B", hold: true })
    await h.client.session.prompt({ path: { sessionID }, body: { text: "turn A" } })
    await provider.held()
    await h.client.session.prompt({ path: { sessionID }, body: { text: "turn B (queued)" } })
    const correct = () =>
      h.client.message.update({
        path: { sessionID, messageID: user.id, partID: textPart(user).id },
        body: { text: "corrected at last" },
      })
    expect((await correct()).response?.status).toBe(409)
    const startedBefore = countOf(subscriber.events, "session.turn.started", sessionID)
    const requests = provider.requests.length
    provider.release()
    const startedB = () => countOf(subscriber.events, "session.turn.started", sessionID) === startedBefore + 1
    await subscriber.until(startedB, "turn B started")
    await provider.waitForRequests(requests + 1)
    const again = await correct()
    expect(again.response?.status).toBe(409)
    expect(again.error).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
    // Turn A's end, turn B's prompt and turn B's start were one decision: no gap a mutation could take.
    const durable = subscriber.durable(sessionID)
    const endedA = durable.findLastIndex((e) => e.type === "session.turn.ended")
    expect(durable.slice(endedA, endedA + 3).map((e) => e.type)).toEqual([
      "session.turn.ended",
      "session.message.admitted",
      "session.turn.started",
    ])
    await provider.held()
    provider.release()
    await waitIdle(h.client, sessionID)
    const done = await correct()
    expect(done.response?.status).toBe(200)
    expect(done.data).toEqual({ ...user, parts: [{ ...textPart(user), text: "corrected at last" }] })
    subscriber.close()
  })

  it("an answer a crash cut off is completed as interrupted, on interrupt and on resume", async () => {
    const { dir, database, config } = childFiles()
    const first = await spawnServe({ database, config, cwd: dir })
    const sessions: Array<string> = []
    const aborted = provider.aborted
    for (const text of ["to be interrupted", "to be resumed"]) {
      const sessionID = (await first.client.session.create({ body: { directory: dir } })).data!.id
      provider.enqueue({ text: `a long answer for ${text}`, hold: true })
      await first.client.session.prompt({ path: { sessionID }, body: { text } })
      sessions.push(sessionID)
    }
    await provider.held(2)
    await first.kill()
    await provider.waitForAborted(aborted + 2)

    const second = await spawnServe({ database, config, cwd: dir, args: ["--no-resume"] })
    const client = second.client
    const [interrupted, resumed] = sessions as [string, string]
    const cutOff = async (sessionID: string) =>
      (await listAll(client, sessionID)).find((m): m is AssistantMessage => m.type === "assistant")!
    const cutOffInterrupted = await cutOff(interrupted)
    const cutOffResumed = await cutOff(resumed)
    await client.session.interrupt({ path: { sessionID: interrupted } })
    await client.session.resume({ path: { sessionID: resumed } })
    await waitIdle(client, resumed)
    const problems: Array<string> = []
    for (const [sessionID, message] of [
      [interrupted, cutOffInterrupted],
      [resumed, cutOffResumed],
    ] as const) {
      const now = (await client.message.get({ path: { sessionID, messageID: message.id } })).data as AssistantMessage
      // docs/architecture.md: an interrupted turn's partial answer is kept, "marked error: Interrupted, finish
      // interrupted"; core's runner promises "never dangling". A subscriber that saw assistant.started for it
      // never sees assistant.completed, and its parts can never be removed or pruned (not completed).
      if (now.time.completed === undefined) problems.push(`${sessionID}: assistant ${message.id} has no time.completed`)
      if (now.finish !== "interrupted") problems.push(`${sessionID}: finish is ${now.finish}`)
      if (now.error?.name !== "Interrupted") problems.push(`${sessionID}: error is ${JSON.stringify(now.error)}`)
    }
    expect(await second.stop()).toBe(0)
    expect(problems).toEqual([])
  })

  it("a retracted prompt no longer chooses the agent of later requests", async () => {
    const h = await start({ agent: { plan: { system: "PLAN AGENT SYSTEM" }, build: { system: "BUILD AGENT SYSTEM" } } })
    const sessionID = await createSession(h)
    const chosen = (
      await h.client.session.prompt({ path: { sessionID }, body: { text: "plan this [plan-prompt]", agent: "plan" } })
    ).data!
    await waitIdle(h.client, sessionID)
    expect(requestText(provider.requests.at(-1))).toContain("PLAN AGENT SYSTEM")
    const retracted = await h.client.message.remove({ path: { sessionID, messageID: chosen.messageID } })
    expect(retracted.response?.status).toBe(200)
    // "No longer visible or used" covers the retracted prompt's agent and model choice too: the next request
    // falls back to the session's agent.
    const from = provider.requests.length
    await h.client.session.synthetic({ path: { sessionID }, body: { text: "wake up [wake]" } })
    await waitIdle(h.client, sessionID)
    const next = requestText(provider.requests[from])
    expect(next).not.toContain("plan-prompt")
    expect(next).toContain("BUILD AGENT SYSTEM")
    expect(next).not.toContain("PLAN AGENT SYSTEM")
  })
})

/** Files for a child server: a temp directory, its database path, and an opencode.json using the local provider. */
const childFiles = (extra: ConfigData = {}) => {
  const dir = tempDir()
  const database = join(dir, "opencode.db")
  const config = join(dir, "opencode.json")
  writeFileSync(config, JSON.stringify(localProviderConfig(provider.url, { events: { persist: true }, ...extra })))
  return { dir, database, config }
}

/**
 * A completed turn with every part type, then a notice: user prompt, an assistant message with reasoning and
 * a tool call (completed), the assistant's final text, and a plugin notice that does not wake the session.
 */
const seedTranscript = async (h: Harness, sessionID: string) => {
  provider.enqueue(
    { reasoning: "weighing the listing [seed-reasoning]", toolCalls: [{ name: "list", arguments: {} }] },
    { text: "the directory is listed [seed-answer]" },
  )
  const prompt = (await h.client.session.prompt({ path: { sessionID }, body: { text: "list things [seed-prompt]" } }))
    .data!
  await waitIdle(h.client, sessionID)
  const admitted = await h.ctx.session.synthetic({ sessionID, text: "a notice [seed-notice]", resume: false })
  const messages = await listAll(h.client, sessionID)
  const user = messages.find((m) => m.id === prompt.messageID)!
  const notice = messages.find((m) => m.id === admitted.messageID)!
  const worker = messages.find(
    (m): m is AssistantMessage => m.type === "assistant" && m.parts.some((p) => p.type === "tool"),
  )!
  const answer = messages.find(
    (m): m is AssistantMessage => m.type === "assistant" && m.parts.some((p) => p.type === "text"),
  )!
  expect(worker.parts.map((p) => p.type)).toEqual(["reasoning", "tool"])
  expect(worker.time.completed).toBeDefined()
  return { user, notice, worker, answer }
}

interface Targets {
  readonly user: Message
  readonly notice: Message
  readonly worker: AssistantMessage
  readonly answer: AssistantMessage
  readonly inflight: AssistantMessage
}

const targetsOf = (seeded: Awaited<ReturnType<typeof seedTranscript>>, inflight: AssistantMessage): Targets => ({
  ...seeded,
  inflight,
})

/** One operation of the contract, on one target. */
type Operation =
  | {
      readonly name: string
      readonly kind: "correct" | "remove-part"
      readonly messageID: string
      readonly partID: string
    }
  | { readonly name: string; readonly kind: "retract"; readonly messageID: string }
  | { readonly name: string; readonly kind: "resume" }

/** Every operation the contract refuses while busy, each on a target that is valid when idle (or in flight). */
const busyOperations = (t: Targets): Array<Operation> => {
  const part = (m: Message, type: string) => m.parts.find((p) => p.type === type)!.id
  return [
    { name: "correct the user prompt", kind: "correct", messageID: t.user.id, partID: part(t.user, "text") },
    { name: "correct the notice", kind: "correct", messageID: t.notice.id, partID: part(t.notice, "text") },
    { name: "correct the assistant answer", kind: "correct", messageID: t.answer.id, partID: part(t.answer, "text") },
    { name: "retract the user prompt", kind: "retract", messageID: t.user.id },
    { name: "retract the notice", kind: "retract", messageID: t.notice.id },
    {
      name: "remove the reasoning part",
      kind: "remove-part",
      messageID: t.worker.id,
      partID: part(t.worker, "reasoning"),
    },
    { name: "remove the tool part", kind: "remove-part", messageID: t.worker.id, partID: part(t.worker, "tool") },
    { name: "correct the in-flight message", kind: "correct", messageID: t.inflight.id, partID: "prt_inflight" },
    {
      name: "remove from the in-flight message",
      kind: "remove-part",
      messageID: t.inflight.id,
      partID: "prt_inflight",
    },
    { name: "resume", kind: "resume" },
  ]
}

type HttpResult = { error?: unknown; response?: Response }

/** The operation over HTTP through the SDK. */
const viaHttp = (client: OpencodeClient, sessionID: string, op: Operation): Promise<HttpResult> => {
  switch (op.kind) {
    case "correct":
      return client.message.update({
        path: { sessionID, messageID: op.messageID, partID: op.partID },
        body: { text: "x" },
      })
    case "remove-part":
      return client.part.remove({ path: { sessionID, messageID: op.messageID, partID: op.partID } })
    case "retract":
      return client.message.remove({ path: { sessionID, messageID: op.messageID } })
    case "resume":
      return client.session.resume({ path: { sessionID } })
  }
}

/** The same operation through the plugin API. */
const viaPlugin = (ctx: PromisePluginContext, sessionID: string, op: Operation): Promise<unknown> => {
  switch (op.kind) {
    case "correct":
      return ctx.session.message.update({ sessionID, messageID: op.messageID, partID: op.partID, text: "x" })
    case "remove-part":
      return ctx.session.part.remove({ sessionID, messageID: op.messageID, partID: op.partID })
    case "retract":
      return ctx.session.message.remove({ sessionID, messageID: op.messageID })
    case "resume":
      return ctx.session.resume({ sessionID })
  }
}

/** The value a promise rejects with; fails the test if it resolves. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  let value: unknown
  try {
    value = await promise
  } catch (error) {
    return error
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(value)}`)
}
