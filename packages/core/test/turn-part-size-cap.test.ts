import { Database } from "bun:sqlite"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { PART_MAX_CHARS, PART_TRUNCATED_MARKER } from "../src/turn/part-limit.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const MEGABYTE = "x".repeat(1024 * 1024)
const CAPPED = PART_MAX_CHARS + PART_TRUNCATED_MARKER.length

describe("a runaway model answer", () => {
  it.live(
    "a 50 MB answer is kept as one item capped at the limit with a marker; deltas stop; the host stops reading",
    () => {
      const host = testHost({ config: localModel(server) })
      return Effect.gen(function* () {
        server.enqueue({ textChunks: Array.from({ length: 50 }, (_, i) => `${i}:${MEGABYTE}`) })
        const aborted = server.aborted
        const seen = { deltaChars: 0, largestDurable: 0 }
        const message = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const bus = yield* Bus
          const info = yield* session.create({ directory: host.directory })
          bus.subscribe((event) => {
            if (event.type === "session.next.text.delta")
              seen.deltaChars += (event.data as { delta: string }).delta.length
            // Durable text: checkpoints (a chunk at an offset) and the whole text at the end.
            if (event.type === "session.next.text.appended") {
              const data = event.data as { offset: number; text: string }
              seen.largestDurable = Math.max(seen.largestDurable, data.offset + data.text.length)
            }
            if (event.type === "session.next.text.ended")
              seen.largestDurable = Math.max(seen.largestDurable, (event.data as { text: string }).text.length)
          })
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "say a lot" } })
          yield* execution.wait(info.id)
          return (yield* session.messages(info.id)).data.find((m): m is AssistantMessage => m.type === "assistant")!
        }).pipe(Effect.provide(host.layer))

        expect(message.content).toHaveLength(1)
        const item = message.content[0] as { type: string; text: string }
        expect(item.type).toBe("text")
        expect(item.text.length).toBe(CAPPED)
        expect(item.text.startsWith(`0:${MEGABYTE.slice(0, 100)}`)).toBe(true)
        expect(item.text.endsWith(PART_TRUNCATED_MARKER)).toBe(true)
        expect(message.finish).toBe("length")
        // Live subscribers got the same capped text, never the rest.
        expect(seen.deltaChars).toBe(CAPPED)
        expect(seen.largestDurable).toBe(CAPPED)
        // The stored row is bounded too.
        const db = new Database(host.database, { readonly: true })
        const row = db.query("SELECT max(length(data)) AS size FROM session_message").get() as { size: number }
        db.close()
        expect(row.size).toBeLessThan(CAPPED + 4096)
        // The host stopped reading: the provider saw the client go away before the answer was complete.
        yield* Effect.promise(() => server.waitForAborted(aborted + 1))
      })
    },
    60_000,
  )
})
