import { Effect } from "effect"
import { copyFileSync, existsSync } from "node:fs"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { CUT_OFF } from "../src/turn/admission.ts"
import { SessionEvent } from "../src/domain/event.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, TextItem } from "../src/domain/message.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { makeHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"
import { makeStore } from "./support/store.ts"
import { tempDb } from "./support/tmp.ts"

/**
 * Streaming checkpoints: while a text streams, what was appended since the last checkpoint is committed
 * (`session.next.text.appended`) once a second has passed, so a crash loses at most that second. The
 * clock is the test's: it stands still and moves a second on the deltas the test picks, so exactly those
 * deltas are followed by a checkpoint.
 */

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())
afterEach(() => vi.restoreAllMocks())

const CHUNKS = ["alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta."]
/**
 * The deltas (1-based) on which the clock moves a second. A delta is published once what it brought is
 * committed, so the second has passed when the next delta arrives: deltas 2, 4 and 5 carry checkpoints.
 */
const TICKS = new Set([1, 3, 4])
/** The delta at which the "crash" copy of the database files is taken: after the third checkpoint. */
const CRASH_AT = 6

/** The projection a replay of a database's journal gives. */
const replayed = (client: Database["Service"]["client"]) => {
  const target = Database.open(":memory:")
  try {
    replay(client, target, makeSessionProjector(target.client))
    return projectionSnapshot(target.client)
  } finally {
    target.client.close()
  }
}

/** The database files as they are on disk this instant, which is what a killed process leaves. */
const copyFiles = (path: string) => {
  const copy = tempDb()
  copyFileSync(path, copy)
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`)
  return copy
}

describe("a streamed text checkpointed several times", () => {
  it("replays to the same projection, and a crash between checkpoints keeps the text up to the last one", async () => {
    let now = Date.now()
    vi.spyOn(Date, "now").mockImplementation(() => now)
    const host = makeHost({ config: localModel(server, { events: { persist: true } }) })
    server.enqueue({ textChunks: CHUNKS })
    /** What each delta carried, and the item's projected text when that delta was published. */
    const deltas: Array<{ delta: string; projected: string | undefined }> = []
    /** Every durable event of the session, as committed (live). */
    const committed: Array<{ type: string; data: any }> = []
    let crashed: string | undefined
    const { sessionID, database } = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const database = yield* Database
        const info = yield* session.create({ directory: host.directory })
        ;(yield* Bus).subscribe((event) => {
          if (event.sessionID === info.id && "seq" in event) committed.push({ type: event.type, data: event.data })
          if (event.type !== "session.next.text.delta" || event.sessionID !== info.id) return
          const data = event.data as { assistantMessageID: string; textID: string; delta: string }
          const message = session.sync.message(info.id, data.assistantMessageID) as AssistantMessage | undefined
          const item = message?.content.find((i): i is TextItem => i.id === data.textID)
          deltas.push({ delta: data.delta, projected: item?.text })
          if (deltas.length === CRASH_AT) crashed = copyFiles(database.path)
          if (TICKS.has(deltas.length)) now += 1_000
        })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "tell me" } })
        yield* execution.wait(info.id)
        return { sessionID: info.id, database }
      }),
    )
    vi.restoreAllMocks()
    expect(deltas.map((d) => d.delta)).toEqual(CHUNKS)
    const upTo = (n: number) => CHUNKS.slice(0, n).join("")

    // Live: three checkpoints, each with what streamed since the previous one, then the whole text. Once
    // the part ended its checkpoints left the journal: the end holds the whole text.
    const text = (events: ReadonlyArray<{ type: string; data: any }>) =>
      events.filter((e) => e.type.startsWith("session.next.text."))
    expect(text(committed).map((e) => e.type)).toEqual([
      "session.next.text.started",
      "session.next.text.appended",
      "session.next.text.appended",
      "session.next.text.appended",
      "session.next.text.ended",
    ])
    expect(
      text(committed)
        .slice(1, 4)
        .map((e) => ({ offset: e.data.offset, text: e.data.text })),
    ).toEqual([
      { offset: 0, text: upTo(2) },
      { offset: upTo(2).length, text: CHUNKS.slice(2, 4).join("") },
      { offset: upTo(4).length, text: CHUNKS[4] },
    ])
    const journal = (
      database.client
        .query("SELECT type, data FROM event WHERE aggregate_id = ? AND type LIKE 'session.next.text.%' ORDER BY seq")
        .all(sessionID) as Array<{ type: string; data: string }>
    ).map((row) => ({ type: row.type, data: JSON.parse(row.data) }))
    expect(journal.map((e) => e.type)).toEqual(["session.next.text.started", "session.next.text.ended"])
    expect(journal[1]!.data.text).toBe(upTo(7))
    // At every moment of the stream the stored text was the text of the last checkpoint: a crash at any
    // delta keeps exactly that (the item itself is committed with the first delta, before it is published).
    expect(deltas.map((d) => d.projected)).toEqual(["", upTo(2), upTo(2), upTo(4), upTo(5), upTo(5), upTo(5)])
    const answer = (await host.run(Session.use((s) => s.messages(sessionID)))).data[1] as AssistantMessage
    expect(answer.content).toEqual([{ type: "text", id: expect.stringMatching(/^prt_/), text: upTo(7) }])
    expect(replayed(database.client)).toEqual(projectionSnapshot(database.client))
    await host.dispose()

    // The crash image, taken between the third checkpoint and the end: the text up to that checkpoint,
    // the answer still open and the claim held; its journal replays to its projection.
    const image = makeStore({ path: crashed!, persist: true })
    const cut = await image.run(
      Effect.gen(function* () {
        const session = yield* Session
        return {
          answer: (yield* session.messages(sessionID)).data[1] as AssistantMessage,
          claim: session.sync.claimed(sessionID),
          database: yield* Database,
        }
      }),
    )
    expect(cut.answer.content).toEqual([{ type: "text", id: answer.content[0]!.id, text: upTo(5) }])
    expect(cut.answer.time.completed).toBeUndefined()
    expect(cut.claim).toBeDefined()
    expect(replayed(cut.database.client)).toEqual(projectionSnapshot(cut.database.client))
    await image.dispose()

    // Restarted on the image, the cut-off answer is closed keeping that text, and the resumed turn sends
    // it back to the model.
    const before = server.requests.length
    server.enqueue({ text: "continuing" })
    const restarted = makeHost({
      database: crashed!,
      directory: host.directory,
      config: localModel(server, { events: { persist: true } }),
    })
    const resumed = await restarted.run(
      Effect.gen(function* () {
        yield* (yield* Execution).wait(sessionID)
        return (yield* (yield* Session).messages(sessionID)).data
      }),
    )
    const closed = resumed[1] as AssistantMessage
    expect(closed.content).toEqual([{ type: "text", id: answer.content[0]!.id, text: upTo(5) }])
    expect(closed).toMatchObject({ finish: "interrupted", error: CUT_OFF })
    const request = server.requests[before]
    expect(request.messages).toContainEqual(
      expect.objectContaining({ role: "assistant", content: expect.stringContaining(upTo(5).trim()) }),
    )
    await restarted.dispose()
  })

  it("applies a checkpoint once however often it is committed, and a reopened file keeps the last one", async () => {
    const path = tempDb()
    const messageID = "msg_checkpointed"
    const textID = "prt_checkpointed"
    const appended = (offset: number, text: string) =>
      draft(SessionEvent.TextAppended, { assistantMessageID: messageID, textID, offset, text })
    const first = makeStore({ path, persist: true })
    const sessionID = await first.run(
      Effect.gen(function* () {
        const bus = yield* Bus
        const info = yield* (yield* Session).create({ directory: "/tmp" })
        yield* bus.commit(info.id, [
          draft(SessionEvent.TurnStarted, { turnID: "trn_checkpointed", reason: "prompt" }),
          draft(SessionEvent.StepStarted, {
            assistantMessageID: messageID,
            turnID: "trn_checkpointed",
            agent: "build",
            model: { providerID: "offline", id: "echo" },
          }),
          draft(SessionEvent.TextStarted, { assistantMessageID: messageID, textID }),
        ])
        // Each checkpoint in its own commit, as the runner makes them; the second one is committed twice
        // (a retried commit), and a later one restates the text from the start.
        for (const checkpoint of [appended(0, "abc"), appended(3, "def"), appended(3, "def"), appended(0, "abcdef")])
          yield* bus.commit(info.id, [checkpoint])
        yield* bus.commit(info.id, [appended(6, "gh")])
        return info.id
      }),
    )
    await first.dispose()
    // A second store on the file (the process after a crash): the text is the last checkpoint's.
    const second = makeStore({ path, persist: true })
    const reopened = await second.run(
      Effect.gen(function* () {
        return {
          message: (yield* (yield* Session).message(sessionID, messageID)) as AssistantMessage,
          database: yield* Database,
        }
      }),
    )
    expect(reopened.message.content).toEqual([{ type: "text", id: textID, text: "abcdefgh" }])
    expect(reopened.message.time.completed).toBeUndefined()
    expect(replayed(reopened.database.client)).toEqual(projectionSnapshot(reopened.database.client))
    await second.dispose()
  })
})
