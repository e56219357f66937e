import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, afterEach, beforeAll, vi } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"

/**
 * The journal of a streamed answer grows with the answer, not with how long it streamed: the streaming
 * checkpoints (one a second) leave the journal when their part ends, whose `text.ended` holds the whole
 * text. The clock is the test's and moves a second on every delta, so every delta is followed by a
 * checkpoint: the worst case for the journal.
 */

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())
afterEach(() => vi.restoreAllMocks())

/** Ids, offsets and JSON framing of the part's start and end rows: the fixed per-part overhead. */
const PER_PART = 512

const replayed = (client: Database["Service"]["client"]) => {
  const target = Database.open(":memory:")
  try {
    replay(client, target, makeSessionProjector(target.client))
    return projectionSnapshot(target.client)
  } finally {
    target.client.close()
  }
}

/** Streams `chunks` with a checkpoint after each; returns the text journal rows and what was seen live. */
const stream = (chunks: ReadonlyArray<string>) => {
  let now = Date.now()
  // The test's clock stands in for Date.now while the host runs, and is put back once the host is gone.
  const clock = Effect.acquireRelease(
    Effect.sync(() => vi.spyOn(Date, "now").mockImplementation(() => now)),
    () => Effect.sync(() => vi.restoreAllMocks()),
  )
  const host = testHost({ config: localModel(server, { events: { persist: true } }) })
  server.enqueue({ textChunks: chunks })
  const program = Effect.gen(function* () {
    const session = yield* Session
    const execution = yield* Execution
    const database = yield* Database
    const info = yield* session.create({ directory: host.directory })
    const live: Array<string> = []
    ;(yield* Bus).subscribe((event) => {
      if (event.sessionID !== info.id) return
      if (event.type === "session.next.text.delta") now += 1_000
      if (event.type === "session.next.text.appended") live.push(event.type)
    })
    yield* execution.prompt({ sessionID: info.id, prompt: { text: "tell me" } })
    yield* execution.wait(info.id)
    const rows = database.client
      .query<{ type: string; bytes: number }, [string]>(
        "SELECT type, length(CAST(data AS BLOB)) AS bytes FROM event WHERE aggregate_id = ? AND (type LIKE 'session.next.text.%' OR type LIKE 'session.next.reasoning.%') ORDER BY seq",
      )
      .all(info.id)
    const answer = (yield* session.messages(info.id)).data[1] as AssistantMessage
    return {
      rows,
      live,
      answer,
      replayed: replayed(database.client),
      projection: projectionSnapshot(database.client),
    }
  })
  return clock.pipe(Effect.andThen(program.pipe(Effect.provide(host.layer))), Effect.scoped)
}

describe("the journal of a streamed answer", () => {
  it.live.each([
    ["3.3 KB in 22 one-second pieces", Array.from({ length: 22 }, (_, i) => `${i}`.padEnd(150, "x"))],
    ["1 MB in 100 one-second pieces", Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(10_000, "y"))],
  ] as const)("%s: at most 1.5x the answer plus a fixed overhead, and replay rebuilds it", ([, chunks]) =>
    Effect.gen(function* () {
      const text = chunks.join("")
      const result = yield* stream(chunks)
      // Checkpoints were committed (live subscribers saw them), then left the journal with the part's end.
      expect(result.live.length).toBeGreaterThanOrEqual(chunks.length - 2)
      expect(result.rows.map((r) => r.type)).toEqual(["session.next.text.started", "session.next.text.ended"])
      const bytes = result.rows.reduce((sum, row) => sum + row.bytes, 0)
      expect(bytes).toBeLessThanOrEqual(1.5 * text.length + PER_PART)
      expect(result.answer.content).toEqual([{ type: "text", id: expect.stringMatching(/^prt_/), text }])
      expect(result.replayed).toEqual(result.projection)
    }),
  )
})
