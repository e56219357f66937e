import type { HookName, PromisePlugin } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"

// Every hook is bounded by `hooks.preflightTimeout`: a callback whose promise never settles fails like one
// that throws, after the (here short) configured time, and the host goes on.
const TIMEOUT = 100
const never = () => new Promise<void>(() => {})

const hanging = (hook: HookName): PromisePlugin => ({
  id: `hangs-${hook}`,
  setup(ctx) {
    ctx.session.hook(hook, never)
  },
})

const hostWith = (plugin: PromisePlugin) =>
  testHost({
    config: { hooks: { preflightTimeout: TIMEOUT }, title: { auto: false } },
    plugins: [{ source: `inline:${plugin.id}`, plugin }],
  })

/** Prompts once, waits for the turn, and returns the session's messages. */
const promptAndWait = (directory: string, text: string) =>
  Effect.gen(function* () {
    const session = yield* Session
    const execution = yield* Execution
    const info = yield* session.create({ directory })
    yield* execution.prompt({ sessionID: info.id, prompt: { text } })
    yield* execution.wait(info.id)
    return { sessionID: info.id, messages: (yield* session.messages(info.id)).data }
  })

const lastAssistant = (messages: ReadonlyArray<{ readonly type: string }>) =>
  messages.filter((m): m is AssistantMessage => m.type === "assistant").at(-1)

describe("every hook is bounded", () => {
  it.live("prompt: the prompt is admitted as sent and its turn fails naming the plugin and the hook", () => {
    const host = hostWith(hanging("prompt"))
    return Effect.gen(function* () {
      const { messages } = yield* promptAndWait(host.directory, "hello")
      expect(JSON.stringify(messages)).toContain('"text":"hello"')
      const error = lastAssistant(messages)?.error as { pluginID?: string; hook?: string; message?: string }
      expect(error).toMatchObject({
        pluginID: "hangs-prompt",
        hook: "prompt",
        message: `timed out after ${TIMEOUT} ms`,
      })
    }).pipe(Effect.provide(host.layer))
  })

  it.live("synthetic: the notice is admitted as sent and its turn fails naming the hook", () => {
    const host = hostWith(hanging("synthetic"))
    return Effect.gen(function* () {
      const session = yield* Session
      const execution = yield* Execution
      const info = yield* session.create({ directory: host.directory })
      yield* execution.synthetic({ sessionID: info.id, origin: "host", text: "a notice" })
      yield* execution.wait(info.id)
      const messages = (yield* session.messages(info.id)).data
      expect(JSON.stringify(messages)).toContain("a notice")
      expect(lastAssistant(messages)?.error).toMatchObject({
        hook: "synthetic",
        message: `timed out after ${TIMEOUT} ms`,
      })
    }).pipe(Effect.provide(host.layer))
  })

  it.live("permission: the tool call is refused with the hook's failure and the turn ends", () => {
    const host = hostWith(hanging("permission"))
    return Effect.gen(function* () {
      const { messages } = yield* promptAndWait(host.directory, '/tool glob {"pattern":"*"}')
      const text = JSON.stringify(messages)
      expect(text).toContain(`timed out after ${TIMEOUT} ms`)
      expect(text).toContain("hangs-permission")
    }).pipe(Effect.provide(host.layer))
  })

  it.live("model.request: the turn fails naming the hook", () => {
    const host = hostWith(hanging("model.request"))
    return Effect.gen(function* () {
      const { messages } = yield* promptAndWait(host.directory, "hello")
      expect(lastAssistant(messages)?.error).toMatchObject({ hook: "model.request" })
      expect(JSON.stringify(messages)).toContain(`timed out after ${TIMEOUT} ms`)
    }).pipe(Effect.provide(host.layer))
  })

  it.live("compaction: the compaction fails and the session is idle again", () => {
    const host = hostWith(hanging("compaction"))
    return Effect.gen(function* () {
      const { sessionID } = yield* promptAndWait(host.directory, "hello")
      const execution = yield* Execution
      const session = yield* Session
      yield* execution.compact(sessionID)
      yield* execution.wait(sessionID)
      const text = JSON.stringify((yield* session.messages(sessionID)).data)
      expect(text).toContain(`timed out after ${TIMEOUT} ms`)
      expect((yield* session.get(sessionID)).status).toBe("idle")
    }).pipe(Effect.provide(host.layer))
  })

  it.live("event callbacks: a delivery that never settles is given up and later events still arrive", () => {
    const seen: Array<string> = []
    let caughtUp!: () => void
    const later = new Promise<void>((resolve) => (caughtUp = resolve))
    const plugin: PromisePlugin = {
      id: "slow-listener",
      setup(ctx) {
        ctx.event.subscribe("*", (event) => {
          seen.push(event.type)
          if (seen.length === 1) return never()
          if (seen.length === 4) caughtUp()
        })
      },
    }
    const host = hostWith(plugin)
    return Effect.gen(function* () {
      yield* promptAndWait(host.directory, "hello")
      // The first delivery hangs; the events after it reach the plugin once the bound has passed.
      yield* Effect.promise(() => later)
      expect(seen.length).toBeGreaterThanOrEqual(4)
    }).pipe(Effect.provide(host.layer))
  })
})
