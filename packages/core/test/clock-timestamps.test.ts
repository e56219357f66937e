import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "@effect/vitest"
import { Bus } from "../src/bus/bus.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

// A moment no wall clock of a test run shows: every timestamp equal to it came from Effect's clock.
const FIXED = Date.UTC(2001, 8, 9, 1, 46, 40)

describe("timestamps come from Effect's Clock", () => {
  it.live("a turn under TestClock stamps its events, messages and tool items with the test clock's time", () => {
    const host = testHost({ config: { events: { persist: true } } })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        yield* TestClock.setTime(FIXED)
        const session = yield* Session
        const execution = yield* Execution
        const bus = yield* Bus
        const info = yield* session.create({ directory: host.directory })
        const admitted = yield* execution.prompt({
          sessionID: info.id,
          prompt: { text: 'look\n/tool list {"path":"."}' },
        })
        yield* execution.wait(info.id)
        const messages = (yield* session.messages(info.id)).data
        const events = yield* Stream.runCollect(bus.log({ sessionID: info.id }))
        return { admitted, info: yield* session.get(info.id), messages, events: Array.from(events) }
      })
        .pipe(Effect.provide(TestClock.layer()))
        .pipe(Effect.provide(host.layer))

      expect(result.admitted.timeCreated).toBe(FIXED)
      expect(result.info.time.created).toBe(FIXED)
      expect(result.events.length).toBeGreaterThan(5)
      for (const event of result.events) expect(event.time).toBe(FIXED)
      const assistants = result.messages.filter((m): m is AssistantMessage => m.type === "assistant")
      expect(assistants.length).toBeGreaterThan(0)
      for (const message of result.messages) expect(message.time.created).toBe(FIXED)
      const tools = assistants.flatMap((m) => m.content).filter((item) => item.type === "tool")
      expect(tools).toHaveLength(1)
      expect(tools[0]!.time?.created).toBe(FIXED)
    })
  })

  it.live("an event committed after TestClock.adjust carries the moved time", () => {
    const host = testHost()
    return Effect.gen(function* () {
      const times = yield* Effect.gen(function* () {
        yield* TestClock.setTime(FIXED)
        const session = yield* Session
        const first = yield* session.create({ directory: host.directory })
        yield* TestClock.adjust("90 minutes")
        const second = yield* session.create({ directory: host.directory })
        return [first.time.created, second.time.created]
      })
        .pipe(Effect.provide(TestClock.layer()))
        .pipe(Effect.provide(host.layer))
      expect(times).toEqual([FIXED, FIXED + 90 * 60_000])
    })
  })
})
