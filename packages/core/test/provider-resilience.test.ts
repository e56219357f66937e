import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Bus, type BusEvent } from "../src/bus/bus.ts"
import type { ConfigData } from "../src/config/config.ts"
import { retryAfterMs } from "../src/provider/ai-sdk.ts"
import { DEFAULT_IDLE_TIMEOUT, makeIdleFetch, type BunRequestInit } from "../src/provider/fetch.ts"
import { Providers } from "../src/provider/registry.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { startAnthropicServer } from "./support/anthropic-server.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer } from "./support/openai-server.ts"

/**
 * Resilient model streams: transient failures retried with backoff (honouring `retry-after`) and reported
 * as status `retrying`, a durable `session.next.retried` and a live `session.status` of type `retry`; errors that name the provider and its endpoint; and an idle
 * timeout between chunks that is the host's (default 10 minutes), never Bun's own fetch timeout.
 */

/** A mock provider server for the test, closed with its scope. */
const serve = <S extends { close(): Promise<unknown> }>(start: () => Promise<S>) =>
  Effect.acquireRelease(
    Effect.promise(() => start()),
    (server) => Effect.promise(() => server.close()),
  )

const provider = (
  type: "anthropic" | "openai-compatible",
  baseURL: string,
  extra: Record<string, unknown> = {},
): ConfigData => ({
  model: "mock/m",
  provider: { mock: { type, baseURL, apiKey: "k", models: { m: {} }, ...extra } },
})

/** Runs one prompt to completion, collecting the session's events and its status at each `session.next.retried`. */
const turn = (config: ConfigData, text = "hello") => {
  const host = testHost({ config })
  return Effect.gen(function* () {
    const bus = yield* Bus
    const session = yield* Session
    const execution = yield* Execution
    const info = yield* session.create({ directory: host.directory })
    const events: Array<BusEvent> = []
    const statuses: Array<string> = []
    const unsubscribe = bus.subscribe((event) => {
      if (event.sessionID !== info.id) return
      events.push(event)
      // Read synchronously while the retry waits: the session reports it.
      if (event.type === "session.next.retried") statuses.push(Effect.runSync(session.get(info.id)).status)
    })
    yield* execution.prompt({ sessionID: info.id, prompt: { text } })
    yield* execution.wait(info.id)
    unsubscribe()
    const items = (yield* session.messages(info.id)).data
    return { events, statuses, items, after: (yield* session.get(info.id)).status }
  }).pipe(Effect.provide(host.layer))
}

describe("retries", () => {
  it.live(
    "a 429 with retry-after: 1, twice, then success: the turn succeeds after two retries, recorded and shown live",
    () =>
      Effect.gen(function* () {
        const server = yield* serve(startAnthropicServer)
        server.enqueue(
          { status: 429, error: "slow down", headers: { "retry-after": "1" } },
          { status: 429, error: "slow down", headers: { "retry-after": "1" } },
          { text: "finally" },
        )
        const result = yield* turn(provider("anthropic", server.url))
        const retries = result.events.filter((e) => e.type === "session.next.retried")
        const retry = (attempt: number) => ({
          attempt,
          delayMs: 1000,
          error: { message: expect.stringContaining("HTTP 429"), isRetryable: true, statusCode: 429 },
        })
        expect(retries.map((e) => e.data)).toEqual([retry(1), retry(2)])
        expect((retries[0]!.data as { error: { message: string } }).error.message).toContain(
          `provider "mock" (127.0.0.1:${server.port})`,
        )
        // The retry is a durable record of the session (a seq of its own); the live status says when the next
        // attempt starts, and is only published (no seq, never stored).
        expect(retries.every((e) => "seq" in e)).toBe(true)
        const status = result.events.filter((e) => e.type === "session.status")
        const retrying = status.filter((e) => (e.data as { name: string }).name === "retrying")
        expect(retrying.map((e) => e.data)).toEqual(
          [1, 2].map((attempt) => ({
            status: { type: "retry", attempt, message: expect.stringContaining("HTTP 429"), next: expect.any(Number) },
            name: "retrying",
          })),
        )
        // Around the waits the session is busy, and idle once the turn released its claim.
        expect(status.map((e) => (e.data as { name: string }).name)).toEqual([
          "busy",
          "retrying",
          "busy",
          "retrying",
          "busy",
          "idle",
        ])
        expect(status.every((e) => !("seq" in e))).toBe(true)
        expect(result.statuses).toEqual(["retrying", "retrying"])
        expect(result.after).toBe("idle")
        const answer = result.items[1] as AssistantMessage
        expect(answer.error).toBeUndefined()
        expect(answer.content).toMatchObject([{ type: "text", text: "finally" }])
        expect(server.requests).toHaveLength(3)
      }),
  )

  it.live("a 400 is not retried, and retries: 0 turns retrying off", () =>
    Effect.gen(function* () {
      const server = yield* serve(startOpenAIServer)
      server.enqueue({ status: 400, error: "bad request" })
      const refused = yield* turn(provider("openai-compatible", server.url))
      expect(refused.events.some((e) => e.type === "session.next.retried")).toBe(false)
      expect((refused.items[1] as AssistantMessage).error?.message).toContain("HTTP 400")

      server.enqueue({ status: 503, error: "overloaded" })
      const off = yield* turn(provider("openai-compatible", server.url, { retries: 0 }))
      expect(off.events.some((e) => e.type === "session.next.retried")).toBe(false)
      expect((off.items[1] as AssistantMessage).error?.message).toContain("HTTP 503")
      expect(server.requests).toHaveLength(2)
    }),
  )

  it.live(
    "a provider that is down: the connection failure is retried, then recorded naming provider and host:port",
    () =>
      Effect.gen(function* () {
        const server = yield* Effect.promise(() => startOpenAIServer())
        const port = server.port
        yield* Effect.promise(() => server.close())
        const result = yield* turn(provider("openai-compatible", `http://127.0.0.1:${port}/v1`, { retries: 1 }))
        expect(
          result.events
            .filter((e) => e.type === "session.next.retried")
            .map((e) => (e.data as { attempt: number }).attempt),
        ).toEqual([1])
        const answer = result.items[1] as AssistantMessage
        expect(answer.finish).toBe("error")
        expect(answer.error?.name).toBe("Provider.Error")
        expect(answer.error?.message).toContain(`provider "mock" (127.0.0.1:${port})`)
      }),
  )
})

describe("idle timeout", () => {
  it.live("one chunk, a silence shorter than the configured timeout, then the rest: the turn succeeds", () =>
    Effect.gen(function* () {
      const server = yield* serve(startOpenAIServer)
      server.enqueue({ text: "a long thought, finally complete", silence: 700 })
      const result = yield* turn(provider("openai-compatible", server.url, { timeout: 3_000 }))
      const answer = result.items[1] as AssistantMessage
      expect(answer.error).toBeUndefined()
      expect(answer.content).toMatchObject([{ type: "text", text: "a long thought, finally complete" }])
    }),
  )

  it.live("a silence longer than the timeout fails the step clearly, keeping what streamed, without retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve(startOpenAIServer)
      server.enqueue({ text: "first words and then nothing", silence: 2_000 })
      const result = yield* turn(provider("openai-compatible", server.url, { timeout: 300 }))
      const answer = result.items[1] as AssistantMessage
      expect(answer.finish).toBe("error")
      expect(answer.error?.message).toBe(
        `provider "mock" (127.0.0.1:${server.port}): no data from the model for 300 ms (the provider's "timeout"); the request was abandoned`,
      )
      expect(answer.content.length).toBeGreaterThan(0)
      expect(result.events.some((e) => e.type === "session.next.retried")).toBe(false)
    }),
  )

  it.live("defaults to 10 minutes, and Bun's own fetch idle timeout is switched off on every request", () =>
    Effect.gen(function* () {
      expect(DEFAULT_IDLE_TIMEOUT).toBe(600_000)
      const listed = yield* Effect.gen(function* () {
        return (yield* Providers).list().find((info) => info.id === "mock")!
      }).pipe(Effect.provide(testHost({ config: provider("openai-compatible", "http://127.0.0.1:9/v1") }).layer))
      expect(listed.timeout).toBe(600_000)

      const seen: Array<BunRequestInit | undefined> = []
      const fetch = makeIdleFetch({
        timeout: DEFAULT_IDLE_TIMEOUT,
        base: async (_input, init) => {
          seen.push(init as BunRequestInit)
          return new Response("ok")
        },
      })
      expect(yield* Effect.promise(() => fetch("http://127.0.0.1:9/x", { method: "POST" }).then((r) => r.text()))).toBe(
        "ok",
      )
      expect(seen[0]!.timeout).toBe(false)
      expect(seen[0]!.method).toBe("POST")
    }),
  )
})

describe("retry-after", () => {
  it("reads seconds, milliseconds and HTTP dates", () => {
    expect(retryAfterMs({ "Retry-After": "2" }, 0)).toBe(2000)
    expect(retryAfterMs({ "retry-after-ms": "150", "retry-after": "9" }, 0)).toBe(150)
    expect(retryAfterMs({ "retry-after": new Date(10_000).toUTCString() }, 7_000)).toBe(3000)
    expect(retryAfterMs({ "retry-after": "soon" }, 0)).toBeUndefined()
    expect(retryAfterMs({}, 0)).toBeUndefined()
  })
})
