import { Effect, Random } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Bus, isDurable } from "../src/bus/bus.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

describe("prompts admitted concurrently on one session", () => {
  it.live("50 prompts from 10 concurrent callers give 50 turns in strictly increasing seq with no interleaving", () => {
    const host = testHost()
    return Effect.gen(function* () {
      const { items, seqs, turns } = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const bus = yield* Bus
        const info = yield* session.create({ directory: host.directory })
        const seqs: Array<number> = []
        let turns = 0
        bus.subscribe((event) => {
          if (!isDurable(event) || event.sessionID !== info.id) return
          seqs.push(event.seq)
          if (event.type === "session.next.turn.started") turns++
        })
        yield* Effect.all(
          Array.from({ length: 10 }, (_, caller) =>
            Effect.forEach(Array.from({ length: 5 }), (_, i) =>
              Effect.gen(function* () {
                const pause = yield* Random.nextIntBetween(0, 4)
                for (let k = 0; k < pause; k++) yield* Effect.yieldNow
                yield* execution.prompt({ sessionID: info.id, prompt: { text: `caller ${caller} prompt ${i}` } })
              }),
            ),
          ),
          { concurrency: "unbounded" },
        )
        yield* execution.wait(info.id)
        const all: Array<Message> = []
        let cursor: string | undefined
        do {
          const page = yield* session.messages(info.id, { limit: 200, ...(cursor ? { cursor } : {}) })
          all.push(...page.data)
          cursor = page.cursor.next
        } while (cursor)
        return { items: all, seqs, turns }
      })
      expect(turns).toBe(50)
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      expect(new Set(seqs).size).toBe(seqs.length)
      expect(items).toHaveLength(100)
      // Strict alternation: each prompt is followed by exactly its answer, before the next prompt.
      for (let i = 0; i < 100; i += 2) {
        const prompt = items[i]!
        const answer = items[i + 1] as AssistantMessage
        expect(prompt.type).toBe("user")
        expect(answer.type).toBe("assistant")
        expect(answer.content[0]).toMatchObject({
          type: "text",
          text: `You said: ${prompt.type === "user" ? prompt.text : ""}`,
        })
        expect(answer.seq).toBeGreaterThan(prompt.seq)
      }
      const texts = items.flatMap((m) => (m.type === "user" ? [m.text] : []))
      expect(new Set(texts).size).toBe(50)
    }).pipe(Effect.provide(host.layer))
  })
})
