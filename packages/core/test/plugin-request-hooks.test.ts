import type { ModelRequestEvent, PromisePlugin, RetryEvent } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterEach, beforeEach } from "vitest"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"

// A server per test: replies one test scripted and did not use never reach the next.
let server: OpenAIServer
beforeEach(async () => {
  server = await startOpenAIServer()
})
afterEach(() => server.close())

const withProvider = (extra: { retries?: number } = {}) => {
  // No title requests: each test counts the requests the server gets.
  const config = localModel(server, { title: { auto: false } })
  return { ...config, provider: { local: { ...config.provider!.local!, ...extra } } }
}

/** Runs one prompt to the end on the host provided and returns the session's last assistant message. */
const turn = (host: ReturnType<typeof testHost>, text: string) =>
  Effect.gen(function* () {
    const session = yield* Session
    const execution = yield* Execution
    const info = yield* session.create({ directory: host.directory })
    yield* execution.prompt({ sessionID: info.id, prompt: { text } })
    yield* execution.wait(info.id)
    const messages = (yield* session.messages(info.id)).data
    return messages.filter((m): m is AssistantMessage => m.type === "assistant").at(-1)!
  })

describe("model.request", () => {
  it.live("headers and options a plugin sets reach the provider's HTTP request; later plugins see earlier edits", () =>
    Effect.gen(function* () {
      const seen: Array<ModelRequestEvent> = []
      const first: PromisePlugin = {
        id: "tracer",
        setup(ctx) {
          ctx.session.hook("model.request", (event) => {
            event.headers["x-plugin-trace"] = `trace-${event.sessionID}`
            event.options.temperature = 0.25
            event.options.custom_flag = "on"
          })
        },
      }
      const second: PromisePlugin = {
        id: "observer",
        setup(ctx) {
          ctx.session.hook("model.request", (event) => {
            seen.push(structuredClone(event))
            event.headers["x-second"] = String(event.options.temperature)
          })
        },
      }
      server.enqueue({ text: "answered" })
      const host = testHost({
        config: withProvider(),
        plugins: [
          { source: "inline:tracer", plugin: first },
          { source: "inline:observer", plugin: second },
        ],
      })
      const answer = yield* turn(host, "hello").pipe(Effect.provide(host.layer))
      expect(answer.error).toBeUndefined()
      expect(seen).toHaveLength(1)
      expect(seen[0]).toMatchObject({
        sessionID: answer.sessionID,
        agentID: "build",
        model: { providerID: "local", id: "test-model" },
        kind: "primary",
        headers: { "x-plugin-trace": `trace-${answer.sessionID}` },
        options: { temperature: 0.25, custom_flag: "on" },
      })
      expect(server.headers[0]!["x-plugin-trace"]).toBe(`trace-${answer.sessionID}`)
      expect(server.headers[0]!["x-second"]).toBe("0.25")
      // The configured key still authenticates: plugin headers add to the provider's own.
      expect(server.headers[0]!.authorization).toBe("Bearer test")
      expect(server.requests[0]!.temperature).toBe(0.25)
      expect(server.requests[0]!.custom_flag).toBe("on")
    }),
  )

  it.live("an unsendable header fails the turn with a Plugin.HookError naming the plugin; nothing is sent", () =>
    Effect.gen(function* () {
      const bad: PromisePlugin = {
        id: "bad-headers",
        setup(ctx) {
          ctx.session.hook("model.request", (event) => {
            event.headers["x-split"] = "a\r\nInjected: yes"
          })
        },
      }
      const host = testHost({ config: withProvider(), plugins: [{ source: "inline:bad", plugin: bad }] })
      const answer = yield* turn(host, "hello").pipe(Effect.provide(host.layer))
      expect(answer.error).toMatchObject({ name: "Plugin.HookError", pluginID: "bad-headers", hook: "model.request" })
      expect(answer.error!.message).toMatch(/x-split/)
      expect(server.requests).toHaveLength(0)
    }),
  )
})

describe("retry", () => {
  it.live("sees the host's decision and may shorten the delay, retry a failure the host would not, or stop", () =>
    Effect.gen(function* () {
      const events: Array<RetryEvent> = []
      const plugin: PromisePlugin = {
        id: "retrier",
        setup(ctx) {
          ctx.session.hook("retry", (event) => {
            events.push(structuredClone(event))
            // A 400 the host gives up on is retried once; transient ones without waiting; a 418 never.
            if (event.error.status === 418) event.decision = { retry: false }
            else event.decision = { retry: true, delay: 0 }
          })
        },
      }
      const host = testHost({
        config: withProvider({ retries: 3 }),
        plugins: [{ source: "inline:retrier", plugin }],
      })
      server.enqueue({ status: 503 }, { status: 400 }, { text: "third time" })
      const refused = yield* Effect.gen(function* () {
        const answer = yield* turn(host, "hello")
        expect(answer.error).toBeUndefined()
        expect(answer.content.find((c) => c.type === "text")).toMatchObject({ text: "third time" })
        expect(events.map((e) => [e.attempt, e.error.status, e.error.retryable, e.decision])).toEqual([
          [1, 503, true, { retry: true, delay: 1000 }],
          [2, 400, false, { retry: false }],
        ])
        expect(events[0]).toMatchObject({ kind: "primary", model: { providerID: "local", id: "test-model" } })
        expect(server.requests).toHaveLength(3)

        server.enqueue({ status: 418 }, { text: "never asked" })
        return yield* turn(host, "again")
      }).pipe(Effect.provide(host.layer))
      expect(refused.error?.message).toMatch(/418/)
      expect(server.requests).toHaveLength(4)
    }),
  )

  it.live("a throwing retry hook stops retrying: the provider's error fails the request", () =>
    Effect.gen(function* () {
      const plugin: PromisePlugin = {
        id: "broken-retry",
        setup(ctx) {
          ctx.session.hook("retry", () => {
            throw new Error("retry hook broke")
          })
        },
      }
      const host = testHost({ config: withProvider({ retries: 3 }), plugins: [{ source: "inline:b", plugin }] })
      server.enqueue({ status: 503, error: "overloaded" }, { text: "not reached" })
      const answer = yield* turn(host, "hello").pipe(Effect.provide(host.layer))
      expect(answer.error?.message).toMatch(/503/)
      expect(server.requests).toHaveLength(1)
    }),
  )
})
