import type { EffectPlugin, PluginEvent, PromisePlugin, PromisePluginContext } from "@opencode-ai/plugin"
import { Effect, Layer, Logger, References, Stream } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Bus } from "../src/bus/bus.ts"
import { HostLayer } from "../src/host.ts"
import { formatLogLine } from "../src/log.ts"
import { Execution } from "../src/turn/execution.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { tempDb, tempDir } from "./support/tmp.ts"

/** A promise and its resolver. */
const signal = <T = void>() => {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** The `durable` stamp of a committed event; live events have none. */
const stamp = (event: PluginEvent) => (event as { durable?: { seq: number } }).durable

const plugin = (id: string, setup: (ctx: PromisePluginContext) => void): PromisePlugin => ({ id, setup })

describe("ctx.event.subscribe", () => {
  it.live("delivers every durable event after it commits, in seq order, typed by subscription", () => {
    const all: Array<PluginEvent> = []
    const committedWhenSeen: Array<boolean> = []
    const ended: Array<string> = []
    const done = signal()
    let rows: ((sessionID: string) => number | undefined) | undefined
    const host = testHost({
      plugins: [
        {
          source: "inline:watcher",
          plugin: plugin("watcher", (ctx) => {
            ctx.event.subscribe("*", async (event) => {
              all.push(event)
              // The projection already holds the event when the subscriber sees it.
              const durable = stamp(event)
              if (durable) committedWhenSeen.push((rows?.(event.data.sessionID) ?? 0) >= durable.seq)
              // Awaiting between events must not reorder them.
              await new Promise<void>((resolve) => setImmediate(resolve))
            })
            ctx.event.subscribe("session.next.turn.ended", (event) => {
              ended.push(event.data.outcome)
              if (ended.length === 2) done.resolve()
            })
          }),
        },
      ],
    })
    return Effect.gen(function* () {
      const journal = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const bus = yield* Bus
        rows = (id) => session.sync.row(id)?.seq
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "/tool list {}" } })
        yield* execution.wait(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hello there" } })
        yield* execution.wait(info.id)
        yield* Effect.promise(() => done.promise)
        const journal = yield* Stream.runCollect(bus.log({ sessionID: info.id }))
        // The `*` subscriber is awaited per event: wait until it has the last durable event of the journal.
        const last = journal.at(-1)!
        while (!all.some((e) => e.id === last.id))
          yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
        return journal
      }).pipe(Effect.provide(host.layer))

      const durable = all.filter((e) => stamp(e) !== undefined)
      expect(durable.map((e) => [e.type, stamp(e)!.seq])).toEqual(journal.map((e) => [e.type, e.seq]))
      expect(committedWhenSeen.length).toBe(durable.length)
      expect(committedWhenSeen.every(Boolean)).toBe(true)
      // Live events come too, in the same envelope without `durable`.
      expect(all.some((e) => e.type === "session.next.text.delta" && stamp(e) === undefined)).toBe(true)
      expect(all.some((e) => e.type === "session.status")).toBe(true)
      expect(ended).toEqual(["completed", "completed"])
    })
  })

  it.live("a subscriber that never resolves does not delay a turn; its overflow is reported exactly once", () => {
    const lines: Array<string> = []
    const capture = Logger.make((options) => {
      lines.push(formatLogLine({ ...options, annotations: options.fiber.getRef(References.CurrentLogAnnotations) }))
    })
    let stuckCalls = 0
    const overflows: Array<PluginEvent> = []
    const ended = signal()
    let turns = 0
    const stuck = plugin("stuck", (ctx) => {
      ctx.event.subscribe(
        "*",
        () => {
          stuckCalls++
          return new Promise<void>(() => {})
        },
        { buffer: 2 },
      )
    })
    const observer = plugin("observer", (ctx) => {
      ctx.event.subscribe("*", (event) => {
        if (event.type === "plugin.event.overflowed") overflows.push(event)
        if (event.type === "session.next.turn.ended" && ++turns === 2) ended.resolve()
      })
    })
    const host = HostLayer({
      database: tempDb(),
      config: { data: {}, directory: tempDir() },
      plugins: [
        { source: "inline:stuck", plugin: stuck },
        { source: "inline:observer", plugin: observer },
      ],
    }).pipe(
      Layer.provideMerge(Logger.layer([capture])),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Info")),
    )
    return Effect.gen(function* () {
      const outcome = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: tempDir() })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "one two three four five" } })
        yield* execution.wait(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "six seven eight" } })
        yield* execution.wait(info.id)
        const messages = (yield* session.messages(info.id)).data
        yield* Effect.promise(() => ended.promise)
        return messages
      }).pipe(Effect.provide(host))

      // Both turns answered although the stuck subscriber never returned from its first event.
      expect(outcome.filter((m) => m.type === "assistant").length).toBe(2)
      expect(stuckCalls).toBe(1)
      expect(overflows.length).toBe(1)
      expect(overflows[0]!.data).toMatchObject({ pluginID: "stuck", subscription: "*", buffer: 2 })
      expect(lines.filter((l) => l.includes("plugin event subscriber is 2 event(s) behind")).length).toBe(1)
      expect(lines.find((l) => l.includes("event(s) behind"))).toMatch(/WARN.*plugin=stuck/)
    })
  })

  it.live("a throwing subscriber is isolated: it keeps its subscription, others and the turn go on", () => {
    const thrown: Array<string> = []
    const seen: Array<string> = []
    const done = signal()
    const host = testHost({
      plugins: [
        {
          source: "inline:thrower",
          plugin: plugin("thrower", (ctx) => {
            ctx.event.subscribe("*", (event) => {
              thrown.push(event.type)
              throw new Error("subscriber broke")
            })
            ctx.event.subscribe("*", async (event) => {
              await Promise.reject(new Error(`rejects ${event.type}`))
            })
          }),
        },
        {
          source: "inline:other",
          plugin: plugin("other", (ctx) => {
            ctx.event.subscribe("*", (event) => {
              seen.push(event.type)
              if (event.type === "session.next.turn.ended") done.resolve()
            })
          }),
        },
      ],
    })
    return Effect.gen(function* () {
      const messages = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "still works" } })
        yield* execution.wait(info.id)
        yield* Effect.promise(() => done.promise)
        while (!thrown.includes("session.next.turn.ended"))
          yield* Effect.promise(() => new Promise<void>((r) => setImmediate(r)))
        return (yield* session.messages(info.id)).data
      }).pipe(Effect.provide(host.layer))
      const answer = messages.find((m) => m.type === "assistant")
      expect(answer?.type === "assistant" && answer.content.some((c) => c.type === "text")).toBe(true)
      expect(seen).toContain("session.next.turn.ended")
      // Every event reached the throwing subscriber too: a throw skips nothing.
      expect(thrown.filter((t) => t !== "plugin.event.overflowed")).toEqual(seen)
    })
  })

  it.live("unsubscribe stops delivery; an Effect plugin's subscription is typed and scoped", () => {
    const promiseSeen: Array<string> = []
    const effectSeen: Array<string> = []
    const second = signal()
    let unsubscribe!: () => void
    const effectPlugin: EffectPlugin = {
      id: "effect-watcher",
      effect: (ctx) =>
        Effect.asVoid(
          ctx.event.subscribe("session.next.prompt.admitted", (event) =>
            Effect.sync(() => {
              effectSeen.push(event.data.prompt.text)
              if (effectSeen.length === 2) second.resolve()
            }),
          ),
        ),
    }
    const host = testHost({
      plugins: [
        {
          source: "inline:once",
          plugin: plugin("once", (ctx) => {
            unsubscribe = ctx.event.subscribe("session.next.prompt.admitted", (event) => {
              promiseSeen.push(event.data.prompt.text)
              unsubscribe()
            })
            expect(() => ctx.event.subscribe("*", undefined as never)).toThrow(/callback must be a function/)
            expect(() => ctx.event.subscribe("*", () => {}, { buffer: 0 })).toThrow(/buffer must be a positive/)
            expect(() => ctx.event.subscribe("" as never, () => {})).toThrow(/type must be an event type/)
          }),
        },
        { source: "inline:effect", plugin: effectPlugin },
      ],
    })
    return Effect.gen(function* () {
      yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "first" } })
        yield* execution.wait(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "second" } })
        yield* execution.wait(info.id)
        yield* Effect.promise(() => second.promise)
      }).pipe(Effect.provide(host.layer))
      expect(promiseSeen).toEqual(["first"])
      expect(effectSeen).toEqual(["first", "second"])
    })
  })
})
