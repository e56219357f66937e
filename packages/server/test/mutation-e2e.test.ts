/**
 * The transcript mutation contract, end to end: the real server (in-process `startServer`, or the
 * `opencode2 serve` CLI as a child process), the generated SDK over HTTP, a real plugin loaded from a file
 * through the `plugin` config list (`test/fixtures/exposer.ts`, which hands its `ctx` to the test), a live
 * SSE subscriber folding the events with the shared transcript rules, and the local OpenAI-compatible
 * provider, whose received request bodies are "the next model request". Stored rows are read from the
 * SQLite file itself.
 */
import type { ConfigData } from "@opencode-ai/core"
import { placeholderFor } from "@opencode-ai/core/maintenance/mutation"
import type { PromisePluginContext } from "@opencode-ai/plugin"
import type {
  OpencodeClient,
  SessionMessage,
  SessionMessageAssistant,
  SessionMessageAssistantText,
  SessionMessageAssistantTool,
} from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { PLUGIN_ID, REWRITE_PREFIX, SUBSTITUTE_PREFIX, pluginContext } from "./fixtures/exposer.ts"
import {
  MUTATION_EVENTS,
  countOf,
  foldTranscript,
  listAll,
  payloadOf,
  subscribe,
  type Subscriber,
} from "./support/e2e-events.ts"
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

type Api = OpencodeClient["v2"]

interface Harness {
  /** For the event streams (`subscribe`). */
  readonly client: OpencodeClient
  /** `client.v2`: the operations. */
  readonly api: Api
  readonly ctx: PromisePluginContext
  readonly directory: string
  readonly database: string
  readonly url: string
}

/** An in-process server (the journal is on by default), the local provider, and the exposer plugin loaded from its file. */
const start = async (extra: ConfigData = {}): Promise<Harness> => {
  const server = await startTestServer({
    // The plugin holds the transcript grant, so it may apply every mutation (ownership has its own test).
    config: localProviderConfig(provider.url, {
      plugin: [{ path: fixture("exposer.ts"), transcript: "any" }],
      ...extra,
    }),
  })
  return { ...server, ctx: pluginContext(server.directory) }
}

const createSession = async (h: Harness) => {
  const created = await h.api.session.create({ location: { directory: h.directory } })
  expect(created.error).toBeUndefined()
  return created.data!.data.id
}

const waitIdle = async (api: Api, sessionID: string) => {
  const waited = await api.session.wait({ sessionID })
  expect(waited.error).toBeUndefined()
  expect(waited.response?.status).toBe(204)
}

const seqOf = async (api: Api, sessionID: string) => (await api.session.get({ sessionID })).data!.data.seq

/** Prompts over HTTP, waits for the turn, and returns the request bodies the provider received for it. */
const promptAndCapture = async (h: Harness, sessionID: string, text: string) => {
  const from = provider.requests.length
  const admitted = await h.api.session.prompt({ sessionID, prompt: { text } })
  expect(admitted.error).toBeUndefined()
  await waitIdle(h.api, sessionID)
  const requests = provider.requests.slice(from)
  expect(requests.length).toBeGreaterThan(0)
  return requests
}

interface Expected {
  /** Texts that must be in the list, the next model request and nowhere be missing. */
  readonly present: ReadonlyArray<string>
  /** Texts in none of the views, nor in any event received since the mutation. */
  readonly absent: ReadonlyArray<string>
  /**
   * Texts only the next model request must lack: what the transcript keeps on purpose (a pruned tool call
   * keeps its item, so its call id, for display), but never sends again.
   */
  readonly unsent?: ReadonlyArray<string>
}

/**
 * The four views must agree: SDK get of each message, SDK list, the subscriber's own fold of the events it
 * received (the shared rules of `@opencode-ai/schema`), and the next model request. `present` must appear
 * in all of them, `absent` in none.
 */
const expectEverywhere = async (
  h: Harness,
  sessionID: string,
  subscriber: Subscriber,
  expected: Expected,
  /** Index into `subscriber.events` of the first event after the mutation: none from there on carries `absent`. */
  since: number,
) => {
  const { present, absent, unsent = [] } = expected
  const listed = await listAll(h.client, sessionID)
  const listedText = JSON.stringify(listed)
  for (const message of listed) {
    const got = await h.api.session.message({ sessionID, messageID: message.id })
    expect(got.data!.data).toEqual(message)
  }
  // The subscriber has seen everything up to the session's current seq, and its view equals the store.
  await subscriber.seen(sessionID, await seqOf(h.api, sessionID))
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
  for (const text of unsent) expect(sent, `the next model request lacks ${text}`).not.toContain(text)
  // The subscriber's view after that turn still equals the store, and nothing it received since the
  // mutation (the mutation event, the next turn's events and deltas) carries the old content.
  const after = await listAll(h.client, sessionID)
  await subscriber.seen(sessionID, await seqOf(h.api, sessionID))
  expect(foldTranscript(subscriber.durable(sessionID))).toEqual(after)
  const received = JSON.stringify(subscriber.events.slice(since))
  for (const text of absent) expect(received, `events since the mutation lack ${text}`).not.toContain(text)
}

/** The data of the durable events of `type` a subscriber received for a session, without the envelope fields. */
const payloads = (subscriber: Subscriber, sessionID: string, type: string) =>
  subscriber
    .durable(sessionID)
    .filter((e) => e.type === type)
    .map(payloadOf)

const assistant = (message: SessionMessage | undefined): SessionMessageAssistant => {
  if (message?.type !== "assistant") throw new Error(`expected an assistant message, got ${JSON.stringify(message)}`)
  return message
}

const textItem = (message: SessionMessage): SessionMessageAssistantText => {
  const item = assistant(message).content.find((p): p is SessionMessageAssistantText => p.type === "text")
  if (!item) throw new Error(`message ${message.id} has no text item`)
  return item
}

const itemOf = (message: SessionMessage, type: "reasoning" | "tool" | "text") => {
  const item = assistant(message).content.find((p) => p.type === type)
  if (!item) throw new Error(`message ${message.id} has no ${type} item`)
  return item
}

/** A message read back through the plugin API (as a plugin sees it). */
const read = (h: Harness, sessionID: string, messageID: string) =>
  h.ctx.session.message.get({ sessionID, messageID }) as Promise<SessionMessage>

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

    const noticeBefore = await read(h, sessionID, notice.id)
    const promptBefore = await read(h, sessionID, prompted.id)
    expect(noticeBefore).toMatchObject({
      type: "synthetic",
      origin: PLUGIN_ORIGIN,
      description: "build status",
      text: OLD_NOTICE,
    })
    expect(promptBefore).toMatchObject({ type: "user", origin: PLUGIN_ORIGIN, text: OLD_PROMPT })

    // Correct both through the plugin API: same ids, role, seq and origin; only the text changes.
    const mark = subscriber.events.length
    const NEW_NOTICE = "notice: the nightly build is green again [new-notice-c0de]"
    const NEW_PROMPT = "reminder: the hotfix is deployed, nothing to do [new-prompt-5eed]"
    const corrected = (by: string) => ({ time: expect.any(Number), by })
    const correctedNotice = await h.ctx.session.message.update({ sessionID, messageID: notice.id, text: NEW_NOTICE })
    expect(correctedNotice).toEqual({ ...noticeBefore, text: NEW_NOTICE, corrected: corrected(PLUGIN_ORIGIN) })
    const correctedPrompt = await h.ctx.session.message.update({ sessionID, messageID: prompted.id, text: NEW_PROMPT })
    expect(correctedPrompt).toEqual({ ...promptBefore, text: NEW_PROMPT, corrected: corrected(PLUGIN_ORIGIN) })

    // The subscriber received both corrections, attributed to the plugin, carrying only the new text.
    await subscriber.until(
      () => countOf(subscriber.events, "session.next.text.corrected", sessionID) === 2,
      "two corrections",
    )
    expect(payloads(subscriber, sessionID, "session.next.text.corrected")).toEqual([
      { messageID: notice.id, text: NEW_NOTICE, by: PLUGIN_ORIGIN },
      { messageID: prompted.id, text: NEW_PROMPT, by: PLUGIN_ORIGIN },
    ])
    await expectEverywhere(
      h,
      sessionID,
      subscriber,
      { present: [NEW_NOTICE, NEW_PROMPT], absent: [OLD_NOTICE, OLD_PROMPT] },
      mark,
    )

    // Correct the notice again, over HTTP PATCH through the SDK: attributed to the user.
    const NEWEST_NOTICE = "notice: build green, release tagged [newest-notice-ab12]"
    const patchMark = subscriber.events.length
    const patched = await h.api.session.correct({ sessionID, messageID: notice.id, text: NEWEST_NOTICE })
    expect(patched.response?.status).toBe(200)
    expect(patched.data!.data).toEqual({ ...noticeBefore, text: NEWEST_NOTICE, corrected: corrected("user") })
    const patchEvent = await subscriber.next(
      (e) => e.type === "session.next.text.corrected" && payloadOf(e).text === NEWEST_NOTICE,
      "the PATCH correction",
    )
    expect(payloadOf(patchEvent)).toEqual({ messageID: notice.id, text: NEWEST_NOTICE, by: "user" })
    await expectEverywhere(
      h,
      sessionID,
      subscriber,
      { present: [NEWEST_NOTICE, NEW_PROMPT], absent: [OLD_NOTICE, OLD_PROMPT, NEW_NOTICE] },
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
    const firstBefore = await read(h, sessionID, first.id)
    const secondBefore = await read(h, sessionID, second.id)
    const substitute = firstBefore.type === "synthetic" ? firstBefore.text : ""
    expect(substitute.startsWith(SUBSTITUTE_PREFIX)).toBe(true)
    // Before the retraction the model saw the plugin-written substitute.
    expect(requestText(provider.requests.at(-1))).toContain(substitute)

    const mark = subscriber.events.length
    const retracted = await h.ctx.session.message.remove({ sessionID, messageID: first.id })
    expect(retracted).toEqual({
      ...firstBefore,
      text: "",
      retracted: { time: expect.any(Number), by: PLUGIN_ORIGIN },
      placeholder: placeholderFor(firstBefore as never),
    })
    expect(retracted.placeholder).not.toContain("stale-notice-4d2e")
    expect(retracted.placeholder).not.toContain(SUBSTITUTE_PREFIX)

    const removed = await h.api.session.retract({ sessionID, messageID: second.id })
    expect(removed.response?.status).toBe(200)
    expect(removed.data!.data).toEqual({
      ...secondBefore,
      text: "",
      retracted: { time: expect.any(Number), by: "user" },
      placeholder: placeholderFor(secondBefore as never),
    })

    // The subscriber saw both retractions with the host placeholder.
    await subscriber.until(
      () => countOf(subscriber.events, "session.next.message.retracted", sessionID) === 2,
      "two retractions",
    )
    expect(payloads(subscriber, sessionID, "session.next.message.retracted")).toEqual([
      { messageID: first.id, placeholder: retracted.placeholder, by: PLUGIN_ORIGIN },
      { messageID: second.id, placeholder: removed.data!.data.placeholder, by: "user" },
    ])
    // get and list show the placeholder with the original id and seq.
    for (const [before, after] of [
      [firstBefore, retracted],
      [secondBefore, removed.data!.data],
    ] as const) {
      const got = (await h.api.session.message({ sessionID, messageID: before.id })).data!.data
      expect(got).toMatchObject({ id: before.id, seq: before.seq, type: "synthetic", origin: PLUGIN_ORIGIN, text: "" })
      expect(got.placeholder).toBe(after.placeholder)
    }
    const gone = ["stale-notice-4d2e", REWRITE_PREFIX, SUBSTITUTE_PREFIX, "other-notice-88aa"]
    await expectEverywhere(h, sessionID, subscriber, { present: [], absent: gone }, mark)
    // Retracting again is harmless: same message, no new event.
    const seq = await seqOf(h.api, sessionID)
    expect(await h.ctx.session.message.remove({ sessionID, messageID: first.id })).toEqual(retracted)
    expect(await seqOf(h.api, sessionID)).toBe(seq)
    subscriber.close()
  })

  it("3. prunes a tool call (HTTP DELETE) and removes a reasoning item (plugin): gone from the next request, row shrinks", async () => {
    const h = await start()
    const directory = tempDir()
    const FILE_MARKER = "file-content-marker-31337"
    writeFileSync(
      join(directory, "big.txt"),
      Array.from({ length: 400 }, (_, i) => `line ${i} ${FILE_MARKER} lorem ipsum dolor sit amet`).join("\n"),
    )
    const REASONING = `deliberating [reasoning-marker-0b5e] ${"weighing the options carefully; ".repeat(200)}`
    const sessionID = (await h.api.session.create({ location: { directory } })).data!.data.id
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
    const worker = assistant(messages.find((m) => m.type === "assistant" && m.content.some((p) => p.type === "tool")))
    expect(worker.time.completed).toBeDefined()
    const reasoning = itemOf(worker, "reasoning")
    const tool = itemOf(worker, "tool") as SessionMessageAssistantTool
    expect(tool).toMatchObject({ callID: "call_big_read", name: "read", state: { status: "completed" } })
    expect(JSON.stringify(tool.state)).toContain(FILE_MARKER)

    const mark = subscriber.events.length
    const size0 = messageRowSize(h.database, worker.id)
    const removedReasoning = await h.ctx.session.item.remove({ sessionID, messageID: worker.id, itemID: reasoning.id })
    expect(removedReasoning).toEqual({ ...worker, content: [tool], removed: [reasoning.id] })
    const size1 = messageRowSize(h.database, worker.id)
    // The row keeps only the removed item's id (`removed`, so a repeated removal is a retry).
    const idBytes = (...ids: Array<string>) => JSON.stringify({ removed: ids }).length
    const reasoningBytes = new TextEncoder().encode(JSON.stringify(reasoning)).length
    expect(size0.bytes - size1.bytes).toBeGreaterThanOrEqual(reasoningBytes - idBytes(reasoning.id))
    expect(size0.chars - size1.chars).toBeGreaterThanOrEqual(JSON.stringify(reasoning).length - idBytes(reasoning.id))

    const prunedTool = await h.api.session.removeItem({ sessionID, messageID: worker.id, itemID: tool.id })
    expect(prunedTool.response?.status).toBe(200)
    const after = assistant(prunedTool.data!.data)
    // The call's item stays (id, call id, name, status) with its input and output emptied, marked pruned.
    expect(after).toEqual({ ...worker, content: [expect.anything()], removed: [reasoning.id] })
    const shell = after.content[0] as SessionMessageAssistantTool
    expect(shell).toMatchObject({
      id: tool.id,
      callID: "call_big_read",
      name: "read",
      state: { status: "completed", input: {}, content: [], structured: {} },
      time: { created: tool.time.created, pruned: expect.any(Number) },
      prunedBy: "user",
    })
    expect(JSON.stringify(shell)).not.toContain(FILE_MARKER)
    const size2 = messageRowSize(h.database, worker.id)
    const toolBytes = new TextEncoder().encode(JSON.stringify(tool)).length
    const shellBytes = new TextEncoder().encode(JSON.stringify(shell)).length
    expect(size1.bytes - size2.bytes).toBeGreaterThanOrEqual(toolBytes - shellBytes)
    expect(size1.chars - size2.chars).toBeGreaterThanOrEqual(JSON.stringify(tool).length - JSON.stringify(shell).length)
    expect(size2.bytes).toBeLessThan(2_000)

    await subscriber.until(
      () =>
        countOf(subscriber.events, "session.next.reasoning.removed", sessionID) +
          countOf(subscriber.events, "session.next.tool.pruned", sessionID) ===
        2,
      "two removals",
    )
    expect(
      subscriber
        .durable(sessionID)
        .filter((e) => MUTATION_EVENTS.has(e.type))
        .map((e) => [e.type, payloadOf(e)]),
    ).toEqual([
      [
        "session.next.reasoning.removed",
        { assistantMessageID: worker.id, reasoningID: reasoning.id, by: PLUGIN_ORIGIN },
      ],
      [
        "session.next.tool.pruned",
        { assistantMessageID: worker.id, callID: "call_big_read", itemID: tool.id, by: "user" },
      ],
    ])
    await expectEverywhere(
      h,
      sessionID,
      subscriber,
      { present: ["final-answer-2c4f"], absent: ["reasoning-marker-0b5e", FILE_MARKER], unsent: ["call_big_read"] },
      mark,
    )
    subscriber.close()
  })

  it("4. reopens after the server PROCESS restarts: identical transcript; the journal replays into identical rows", async () => {
    const { dir, database, config } = childFiles({ plugin: [fixture("exposer.ts")] })
    const first = await spawnServe({ database, config, cwd: dir })
    const api = first.api
    expect((await api.plugin.list()).data!.data).toEqual([
      { id: PLUGIN_ID, source: fixture("exposer.ts"), status: "loaded", flavour: "promise" },
    ])
    const sessionID = (await api.session.create({ location: { directory: dir }, title: "reopen" })).data!.data.id
    provider.enqueue(
      {
        reasoning: "thinking about the tree [reasoning-r4]",
        toolCalls: [{ id: "call_r4", name: "list", arguments: {} }],
      },
      { text: "the directory is listed [answer-r4]" },
    )
    const prompt = (await api.session.prompt({ sessionID, prompt: { text: "list the directory [prompt-r4]" } })).data!
      .data
    await waitIdle(api, sessionID)
    const stale = `${REWRITE_PREFIX} stale [notice-r4]`
    const notice = (await api.session.synthetic({ sessionID, text: stale, resume: false })).data!.data
    await api.session.synthetic({ sessionID, text: "another notice [notice2-r4]" })
    await waitIdle(api, sessionID)

    // Every kind of mutation, over HTTP.
    const messages = await listAll(first.client, sessionID)
    const user = messages.find((m) => m.id === prompt.id)!
    const worker = assistant(messages.find((m) => m.type === "assistant" && m.content.some((p) => p.type === "tool")))
    const answer = messages.find((m) => m.type === "assistant" && JSON.stringify(m).includes("answer-r4"))!
    const ok = (result: { error?: unknown; response?: Response }) => {
      expect(result.error).toBeUndefined()
      expect(result.response?.status).toBe(200)
    }
    ok(await api.session.correct({ sessionID, messageID: user.id, text: "corrected prompt [fixed-r4]" }))
    ok(
      await api.session.correct({
        sessionID,
        messageID: answer.id,
        itemID: textItem(answer).id,
        text: "corrected answer [fixed-a4]",
      }),
    )
    ok(await api.session.retract({ sessionID, messageID: notice.id }))
    for (const item of worker.content)
      ok(await api.session.removeItem({ sessionID, messageID: worker.id, itemID: item.id }))

    const before = await listAll(first.client, sessionID)
    const sessionBefore = (await api.session.get({ sessionID })).data!.data
    expect(sessionBefore.status).toBe("idle")
    // A crash after the commits: nothing is lost.
    await first.kill()

    const second = await spawnServe({ database, config, cwd: dir })
    const after = await listAll(second.client, sessionID)
    expect(after).toEqual(before)
    expect((await second.api.session.get({ sessionID })).data!.data).toEqual(sessionBefore)
    for (const message of before) {
      expect((await second.api.session.message({ sessionID, messageID: message.id })).data!.data).toEqual(message)
    }
    expect(JSON.stringify(after)).not.toMatch(/prompt-r4|notice-r4|reasoning-r4|answer-r4/)
    // The pruned call keeps its item (its call id, for display), emptied.
    const shell = assistant(after.find((m) => m.id === worker.id)).content
    expect(shell).toEqual([
      expect.objectContaining({
        type: "tool",
        callID: "call_r4",
        time: expect.objectContaining({ pruned: expect.any(Number) }),
      }),
    ])
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
    await h.api.session.prompt({ sessionID, prompt: { text: "start a long turn" } })
    await provider.held()
    expect((await h.api.session.get({ sessionID })).data!.data.status).toBe("busy")
    const inflight = assistant((await listAll(h.client, sessionID)).at(-1))
    expect(inflight.time.completed).toBeUndefined()

    const before = storeSnapshot(h.database)
    const operations = busyOperations(targetsOf(seeded, inflight))
    for (const op of operations) {
      const result = await viaHttp(h.api, sessionID, op)
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
    await waitIdle(h.api, sessionID)
    subscriber.close()
  })

  it("6. idle: unknown message 404 MessageNotFoundError, unknown item 404 ItemNotFoundError, wrong target 400 InvalidTargetError", async () => {
    const h = await start()
    const sessionID = await createSession(h)
    const { user, notice, worker, answer } = await seedTranscript(h, sessionID)
    const answerText = textItem(answer)
    const reasoning = itemOf(worker, "reasoning")
    const tool = itemOf(worker, "tool")

    const elsewhere = await createSession(h)
    const foreign = await h.ctx.session.synthetic({ sessionID: elsewhere, text: "a notice elsewhere", resume: false })
    const before = storeSnapshot(h.database)

    // Unknown message: every read and mutation, both flavours.
    const missing = { sessionID, messageID: "msg_doesNotExist" }
    for (const result of [
      await h.api.session.message(missing),
      await h.api.session.correct({ ...missing, text: "x" }),
      await h.api.session.retract(missing),
      await h.api.session.removeItem({ ...missing, itemID: tool.id }),
    ]) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual({ _tag: "MessageNotFoundError", ...missing, message: expect.any(String) })
    }
    for (const call of [
      () => h.ctx.session.message.get(missing),
      () => h.ctx.session.message.update({ ...missing, text: "x" }),
      () => h.ctx.session.message.remove(missing),
      () => h.ctx.session.item.remove({ ...missing, itemID: tool.id }),
    ]) {
      expect(await rejection(call())).toEqual({
        _tag: "Session.MessageNotFoundError",
        ...missing,
        message: expect.any(String),
      })
    }

    // A message that exists, but in another session, is unknown here.
    const crossed = { sessionID, messageID: foreign.id }
    const crossedResult = await h.api.session.retract(crossed)
    expect(crossedResult.response?.status).toBe(404)
    expect(crossedResult.error).toEqual({ _tag: "MessageNotFoundError", ...crossed, message: expect.any(String) })
    expect(await rejection(h.ctx.session.message.remove(crossed))).toEqual({
      _tag: "Session.MessageNotFoundError",
      ...crossed,
      message: expect.any(String),
    })

    // Unknown item of an existing assistant message.
    const noItem = (messageID: string) => ({ sessionID, messageID, itemID: "prt_doesNotExist" })
    for (const result of [
      await h.api.session.correct({ ...noItem(answer.id), text: "x" }),
      await h.api.session.removeItem(noItem(worker.id)),
    ]) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toMatchObject({ _tag: "ItemNotFoundError", sessionID, itemID: "prt_doesNotExist" })
    }
    expect(await rejection(h.ctx.session.message.update({ ...noItem(answer.id), text: "x" }))).toEqual({
      _tag: "Session.ItemNotFoundError",
      ...noItem(answer.id),
      message: expect.any(String),
    })
    expect(await rejection(h.ctx.session.item.remove(noItem(worker.id)))).toEqual({
      _tag: "Session.ItemNotFoundError",
      ...noItem(worker.id),
      message: expect.any(String),
    })

    // Wrong targets: the operation does not apply, and says why.
    const invalid = (messageID: string, itemID?: string) => ({
      _tag: "InvalidTargetError",
      sessionID,
      messageID,
      ...(itemID ? { itemID } : {}),
      reason: expect.stringMatching(/\S/),
      message: expect.any(String),
    })
    type Call = () => Promise<{ error?: unknown; response?: Response }>
    const wrong: Array<[string, Call, ReturnType<typeof invalid>]> = [
      [
        "retract an assistant message",
        () => h.api.session.retract({ sessionID, messageID: answer.id }),
        invalid(answer.id),
      ],
      [
        "correct a tool item",
        () => h.api.session.correct({ sessionID, messageID: worker.id, itemID: tool.id, text: "x" }),
        invalid(worker.id, tool.id),
      ],
      [
        "correct a reasoning item",
        () => h.api.session.correct({ sessionID, messageID: worker.id, itemID: reasoning.id, text: "x" }),
        invalid(worker.id, reasoning.id),
      ],
      [
        "correct an assistant message without naming its text item",
        () => h.api.session.correct({ sessionID, messageID: answer.id, text: "x" }),
        invalid(answer.id),
      ],
      [
        "correct a user message naming an item (it has none)",
        () => h.api.session.correct({ sessionID, messageID: user.id, itemID: answerText.id, text: "x" }),
        invalid(user.id, answerText.id),
      ],
      [
        "remove a text item",
        () => h.api.session.removeItem({ sessionID, messageID: answer.id, itemID: answerText.id }),
        invalid(answer.id, answerText.id),
      ],
      [
        "remove an item of a user message",
        () => h.api.session.removeItem({ sessionID, messageID: user.id, itemID: tool.id }),
        invalid(user.id, tool.id),
      ],
      [
        "remove an item of a notice",
        () => h.api.session.removeItem({ sessionID, messageID: notice.id, itemID: tool.id }),
        invalid(notice.id, tool.id),
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
        "correct a tool item",
        () => h.ctx.session.message.update({ sessionID, messageID: worker.id, itemID: tool.id, text: "x" }),
        invalid(worker.id, tool.id),
      ],
      [
        "remove a text item",
        () => h.ctx.session.item.remove({ sessionID, messageID: answer.id, itemID: answerText.id }),
        invalid(answer.id, answerText.id),
      ],
      [
        "remove an item of a notice",
        () => h.ctx.session.item.remove({ sessionID, messageID: notice.id, itemID: tool.id }),
        invalid(notice.id, tool.id),
      ],
    ]
    for (const [name, call, body] of wrongInPlugin) expect(await rejection(call()), name).toEqual(plugin(body))
    // None of the refusals changed a byte.
    expect(storeSnapshot(h.database)).toEqual(before)

    // A retracted message's text can no longer be corrected (it has no content left to correct).
    await h.ctx.session.message.remove({ sessionID, messageID: notice.id })
    const afterRetraction = await h.api.session.correct({ sessionID, messageID: notice.id, text: "x" })
    expect(afterRetraction.response?.status).toBe(400)
    expect(afterRetraction.error).toEqual(invalid(notice.id))
  })

  it("6b. a turn a crash left is busy (suspended) until interrupted; an unfinished answer is never a target", async () => {
    const { dir, database, config } = childFiles()
    const first = await spawnServe({ database, config, cwd: dir })
    const sessionID = (await first.api.session.create({ location: { directory: dir } })).data!.data.id
    provider.enqueue({ text: "a long answer that never finishes", hold: true })
    const aborted = provider.aborted
    const prompt = (await first.api.session.prompt({ sessionID, prompt: { text: "start something long" } })).data!.data
    await provider.held()
    await first.kill()
    await provider.waitForAborted(aborted + 1)

    const second = await spawnServe({ database, config, cwd: dir, args: ["--no-resume"] })
    const api = second.api
    expect((await api.session.get({ sessionID })).data!.data.status).toBe("suspended")
    const suspended = await listAll(second.client, sessionID)
    const user = suspended.find((m) => m.id === prompt.id)!
    // The answer that was streaming when the process died: nothing of it was checkpointed yet.
    const cutOff = assistant(suspended.at(-1))
    expect(cutOff.time.completed).toBeUndefined()
    expect(cutOff.content.every((item) => item.type === "text" && item.text === "")).toBe(true)

    // Suspended counts as busy: every mutation is refused and nothing changes.
    const before = storeSnapshot(database)
    for (const result of [
      await api.session.correct({ sessionID, messageID: user.id, text: "x" }),
      await api.session.retract({ sessionID, messageID: user.id }),
      await api.session.removeItem({ sessionID, messageID: cutOff.id, itemID: "prt_any" }),
      await api.session.correct({ sessionID, messageID: cutOff.id, itemID: "prt_any", text: "x" }),
    ]) {
      expect(result.response?.status).toBe(409)
      expect(result.error).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
    }
    expect(storeSnapshot(database)).toEqual(before)

    // Interrupting releases the claim; the session is idle and mutable again.
    expect((await api.session.interrupt({ sessionID })).error).toBeUndefined()
    expect((await api.session.get({ sessionID })).data!.data.status).toBe("idle")
    const corrected = await api.session.correct({ sessionID, messageID: user.id, text: "start something shorter" })
    expect(corrected.data!.data).toEqual({
      ...user,
      text: "start something shorter",
      corrected: { time: expect.any(Number), by: "user" },
    })

    // Whatever the host records for the cut-off answer, an assistant message that is not completed is
    // never mutated: correcting or removing its items is 400 InvalidTargetError (the documented rule).
    for (const message of await listAll(second.client, sessionID)) {
      if (message.type !== "assistant" || message.time.completed !== undefined) continue
      const target = { sessionID, messageID: message.id, itemID: "prt_any" }
      const refused = {
        _tag: "InvalidTargetError",
        messageID: message.id,
        reason: expect.stringMatching(/not completed/),
      }
      const update = await api.session.correct({ ...target, text: "x" })
      expect(update.response?.status).toBe(400)
      expect(update.error).toMatchObject(refused)
      const remove = await api.session.removeItem(target)
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
    await h.api.session.prompt({ sessionID, prompt: { text: "turn one" } })
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
    const result = (await retried) as SessionMessage
    expect(attempts).toBe(2)
    expect(result).toMatchObject({
      id: notice.id,
      seq: notice.seq,
      type: "synthetic",
      text: "",
      placeholder: expect.any(String),
    })

    // (b) Over HTTP: busy; the turn ends but a queued prompt's turn starts in the same commit, so the retry is
    // busy again; once that turn is over too, the retry succeeds on the same message.
    provider.enqueue({ text: "held A", hold: true }, { text: "held B", hold: true })
    await h.api.session.prompt({ sessionID, prompt: { text: "turn A" } })
    await provider.held()
    await h.api.session.prompt({ sessionID, prompt: { text: "turn B (queued)" } })
    const correct = () => h.api.session.correct({ sessionID, messageID: user.id, text: "corrected at last" })
    expect((await correct()).response?.status).toBe(409)
    const startedBefore = countOf(subscriber.events, "session.next.turn.started", sessionID)
    const requests = provider.requests.length
    provider.release()
    const startedB = () => countOf(subscriber.events, "session.next.turn.started", sessionID) === startedBefore + 1
    await subscriber.until(startedB, "turn B started")
    await provider.waitForRequests(requests + 1)
    const again = await correct()
    expect(again.response?.status).toBe(409)
    expect(again.error).toEqual({ _tag: "SessionBusyError", sessionID, message: expect.any(String) })
    // Turn A's end, turn B's prompt and turn B's start were one decision: no gap a mutation could take.
    const durable = subscriber.durable(sessionID)
    const endedA = durable.findLastIndex((e) => e.type === "session.next.turn.ended")
    expect(durable.slice(endedA, endedA + 3).map((e) => e.type)).toEqual([
      "session.next.turn.ended",
      "session.next.prompt.admitted",
      "session.next.turn.started",
    ])
    expect(new Set(durable.slice(endedA, endedA + 3).map((e) => e.durable.seq)).size).toBe(3)
    await provider.held()
    provider.release()
    await waitIdle(h.api, sessionID)
    const done = await correct()
    expect(done.response?.status).toBe(200)
    expect(done.data!.data).toEqual({
      ...user,
      text: "corrected at last",
      corrected: { time: expect.any(Number), by: "user" },
    })
    subscriber.close()
  })

  it("an answer a crash cut off is completed as interrupted, on interrupt and on resume", async () => {
    const { dir, database, config } = childFiles()
    const first = await spawnServe({ database, config, cwd: dir })
    const sessions: Array<string> = []
    const aborted = provider.aborted
    for (const text of ["to be interrupted", "to be resumed"]) {
      const sessionID = (await first.api.session.create({ location: { directory: dir } })).data!.data.id
      provider.enqueue({ text: `a long answer for ${text}`, hold: true })
      await first.api.session.prompt({ sessionID, prompt: { text } })
      sessions.push(sessionID)
    }
    await provider.held(2)
    await first.kill()
    await provider.waitForAborted(aborted + 2)

    const second = await spawnServe({ database, config, cwd: dir, args: ["--no-resume"] })
    const api = second.api
    const [interrupted, resumed] = sessions as [string, string]
    const cutOff = async (sessionID: string) =>
      assistant((await listAll(second.client, sessionID)).find((m) => m.type === "assistant"))
    const cutOffInterrupted = await cutOff(interrupted)
    const cutOffResumed = await cutOff(resumed)
    await api.session.interrupt({ sessionID: interrupted })
    await api.session.resume({ sessionID: resumed })
    await waitIdle(api, resumed)
    const problems: Array<string> = []
    for (const [sessionID, message] of [
      [interrupted, cutOffInterrupted],
      [resumed, cutOffResumed],
    ] as const) {
      const now = assistant((await api.session.message({ sessionID, messageID: message.id })).data!.data)
      // docs/architecture.md: an interrupted turn's partial answer is kept, "marked error: Interrupted, finish
      // interrupted"; core's runner promises "never dangling". A subscriber that saw step.started for it
      // never sees step.ended, and its items can never be removed or pruned (not completed).
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
      await h.api.session.prompt({ sessionID, prompt: { text: "plan this [plan-prompt]" }, agent: "plan" })
    ).data!.data
    await waitIdle(h.api, sessionID)
    expect(requestText(provider.requests.at(-1))).toContain("PLAN AGENT SYSTEM")
    const retracted = await h.api.session.retract({ sessionID, messageID: chosen.id })
    expect(retracted.response?.status).toBe(200)
    // "No longer visible or used" covers the retracted prompt's agent and model choice too: the next request
    // falls back to the session's agent.
    const from = provider.requests.length
    await h.api.session.synthetic({ sessionID, text: "wake up [wake]" })
    await waitIdle(h.api, sessionID)
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
  writeFileSync(config, JSON.stringify(localProviderConfig(provider.url, extra)))
  return { dir, database, config }
}

/**
 * A completed turn with every item type, then a notice: user prompt, an assistant message with reasoning and
 * a tool call (completed), the assistant's final text, and a plugin notice that does not wake the session.
 */
const seedTranscript = async (h: Harness, sessionID: string) => {
  provider.enqueue(
    { reasoning: "weighing the listing [seed-reasoning]", toolCalls: [{ name: "list", arguments: {} }] },
    { text: "the directory is listed [seed-answer]" },
  )
  const prompt = (await h.api.session.prompt({ sessionID, prompt: { text: "list things [seed-prompt]" } })).data!.data
  await waitIdle(h.api, sessionID)
  const admitted = await h.ctx.session.synthetic({ sessionID, text: "a notice [seed-notice]", resume: false })
  const messages = await listAll(h.client, sessionID)
  const user = messages.find((m) => m.id === prompt.id)!
  const notice = messages.find((m) => m.id === admitted.id)!
  const worker = assistant(messages.find((m) => m.type === "assistant" && m.content.some((p) => p.type === "tool")))
  const answer = assistant(messages.find((m) => m.type === "assistant" && m.content.some((p) => p.type === "text")))
  expect(worker.content.map((p) => p.type)).toEqual(["reasoning", "tool"])
  expect(worker.time.completed).toBeDefined()
  expect(user).toMatchObject({ type: "user", text: "list things [seed-prompt]" })
  expect(notice).toMatchObject({ type: "synthetic", text: "a notice [seed-notice]" })
  return { user, notice, worker, answer }
}

interface Targets {
  readonly user: SessionMessage
  readonly notice: SessionMessage
  readonly worker: SessionMessageAssistant
  readonly answer: SessionMessageAssistant
  readonly inflight: SessionMessageAssistant
}

const targetsOf = (seeded: Awaited<ReturnType<typeof seedTranscript>>, inflight: SessionMessageAssistant): Targets => ({
  ...seeded,
  inflight,
})

/** One operation of the contract, on one target. */
type Operation =
  | { readonly name: string; readonly kind: "correct"; readonly messageID: string; readonly itemID?: string }
  | { readonly name: string; readonly kind: "remove-item"; readonly messageID: string; readonly itemID: string }
  | { readonly name: string; readonly kind: "retract"; readonly messageID: string }
  | { readonly name: string; readonly kind: "resume" }

/** Every operation the contract refuses while busy, each on a target that is valid when idle (or in flight). */
const busyOperations = (t: Targets): Array<Operation> => [
  { name: "correct the user prompt", kind: "correct", messageID: t.user.id },
  { name: "correct the notice", kind: "correct", messageID: t.notice.id },
  { name: "correct the assistant answer", kind: "correct", messageID: t.answer.id, itemID: textItem(t.answer).id },
  { name: "retract the user prompt", kind: "retract", messageID: t.user.id },
  { name: "retract the notice", kind: "retract", messageID: t.notice.id },
  {
    name: "remove the reasoning item",
    kind: "remove-item",
    messageID: t.worker.id,
    itemID: itemOf(t.worker, "reasoning").id,
  },
  { name: "prune the tool call", kind: "remove-item", messageID: t.worker.id, itemID: itemOf(t.worker, "tool").id },
  { name: "correct the in-flight message", kind: "correct", messageID: t.inflight.id, itemID: "prt_inflight" },
  { name: "remove from the in-flight message", kind: "remove-item", messageID: t.inflight.id, itemID: "prt_inflight" },
  { name: "resume", kind: "resume" },
]

type HttpResult = { error?: unknown; response?: Response }

/** The operation over HTTP through the SDK. */
const viaHttp = (api: Api, sessionID: string, op: Operation): Promise<HttpResult> => {
  switch (op.kind) {
    case "correct":
      return api.session.correct({
        sessionID,
        messageID: op.messageID,
        ...(op.itemID ? { itemID: op.itemID } : {}),
        text: "x",
      })
    case "remove-item":
      return api.session.removeItem({ sessionID, messageID: op.messageID, itemID: op.itemID })
    case "retract":
      return api.session.retract({ sessionID, messageID: op.messageID })
    case "resume":
      return api.session.resume({ sessionID })
  }
}

/** The same operation through the plugin API. */
const viaPlugin = (ctx: PromisePluginContext, sessionID: string, op: Operation): Promise<unknown> => {
  switch (op.kind) {
    case "correct":
      return ctx.session.message.update({
        sessionID,
        messageID: op.messageID,
        ...(op.itemID ? { itemID: op.itemID } : {}),
        text: "x",
      })
    case "remove-item":
      return ctx.session.item.remove({ sessionID, messageID: op.messageID, itemID: op.itemID })
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
