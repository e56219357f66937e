import type { ContextEvent, PreflightEvent, PromisePlugin } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

type Call =
  | { hook: "preflight"; event: PreflightEvent; frozen: boolean }
  | { hook: "context"; sessionID: string }
  | { hook: "preflight-settled" }

/** Records the order of preflight and context calls. */
const recorder = (
  calls: Array<Call>,
  options: { preflight?: (event: PreflightEvent) => Promise<void> | void } = {},
): PromisePlugin => ({
  id: "order",
  setup(ctx) {
    ctx.session.hook("preflight", async (event) => {
      calls.push({ hook: "preflight", event: { ...event }, frozen: Object.isFrozen(event) })
      await options.preflight?.(event)
      calls.push({ hook: "preflight-settled" })
    })
    ctx.session.hook("context", (event) => {
      calls.push({ hook: "context", sessionID: event.sessionID })
    })
  },
})

describe("session.preflight", () => {
  it.live("runs, frozen and awaited, before context on every path: prompt, synthetic wake, continue, resume", () => {
    const calls: Array<Call> = []
    const host = testHost({
      plugins: [
        {
          source: "inline:order",
          // Settles only after a macrotask: if the host did not await it, context would come first.
          plugin: recorder(calls, { preflight: () => new Promise<void>((resolve) => setImmediate(resolve)) }),
        },
      ],
    })
    return Effect.gen(function* () {
      yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "/tool list {}" } })
        yield* execution.wait(info.id)
        yield* execution.synthetic({ sessionID: info.id, text: "wake up", origin: "plugin:x" })
        yield* execution.wait(info.id)
        yield* execution.resume(info.id)
        yield* execution.wait(info.id)
      })
      const sequence = calls.map((c) =>
        c.hook === "preflight" ? `preflight:${c.event.reason}:${c.event.step}` : c.hook,
      )
      expect(sequence).toEqual([
        "preflight:prompt:1",
        "preflight-settled",
        "context",
        "preflight:continue:2",
        "preflight-settled",
        "context",
        "preflight:synthetic:1",
        "preflight-settled",
        "context",
        "preflight:resume:1",
        "preflight-settled",
        "context",
      ])
      for (const call of calls)
        if (call.hook === "preflight") {
          expect(call.frozen).toBe(true)
          expect(call.event.agentID).toBe("build")
        }
    }).pipe(Effect.provide(host.layer))
  })

  it.live("a throwing preflight fails that turn with a recorded typed error; the session stays usable", () => {
    let fail = true
    const host = testHost({
      plugins: [
        {
          source: "inline:thrower",
          plugin: {
            id: "thrower",
            setup(ctx) {
              ctx.session.hook("preflight", () => {
                if (fail) throw new Error("cannot prove ownership")
              })
            },
          },
        },
      ],
    })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "one" } })
        yield* execution.wait(info.id)
        const status = (yield* session.get(info.id)).status
        fail = false
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "two" } })
        yield* execution.wait(info.id)
        return { status, items: (yield* session.messages(info.id)).data }
      })
      expect(result.status).toBe("idle")
      expect((result.items[1] as AssistantMessage).error).toEqual({
        type: "unknown",
        name: "Plugin.HookError",
        message: "cannot prove ownership",
        pluginID: "thrower",
        hook: "preflight",
      })
      expect((result.items[3] as AssistantMessage).content[0]).toMatchObject({ text: "You said: two" })
    }).pipe(Effect.provide(host.layer))
  })

  it.live("a preflight that outlives the configured timeout fails the turn and the session stays usable", () => {
    let hang = true
    const host = testHost({
      config: { hooks: { preflightTimeout: 50 } },
      plugins: [
        {
          source: "inline:slow",
          plugin: {
            id: "slow",
            setup(ctx) {
              ctx.session.hook("preflight", () => (hang ? new Promise<void>(() => {}) : undefined))
            },
          },
        },
      ],
    })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "one" } })
        yield* execution.wait(info.id)
        hang = false
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "two" } })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      })
      expect((result[1] as AssistantMessage).error).toEqual({
        type: "unknown",
        name: "Plugin.HookError",
        message: "timed out after 50 ms",
        pluginID: "slow",
        hook: "preflight",
      })
      expect((result[3] as AssistantMessage).error).toBeUndefined()
    }).pipe(Effect.provide(host.layer))
  })
})

describe("system part provenance in session.context", () => {
  it.live(
    "overwrites spoofed origins, keeps ids through reordering, and never lets an edit change another's origin",
    () => {
      const seen: Array<ContextEvent["system"]> = []
      const spoofer: PromisePlugin = {
        id: "spoofer",
        setup(ctx) {
          ctx.session.hook("context", (event) => {
            // Claim to be the agent, reorder, and edit the host's part text.
            event.system.unshift({
              type: "text",
              id: "spoof",
              text: "spoofed part",
              origin: { type: "agent", agentID: "build" },
            })
            event.system.push({ text: "no id given" } as never)
            event.system.reverse()
            const agentPart = event.system.find((p) => p.id === "agent:build")!
            agentPart.text = `${agentPart.text} (edited)`
            agentPart.origin = { type: "plugin", pluginID: "spoofer" }
          })
        },
      }
      const observer: PromisePlugin = {
        id: "observer",
        setup(ctx) {
          ctx.session.hook("context", (event) => {
            seen.push(structuredClone(event.system))
          })
        },
      }
      const host = testHost({
        config: localModel(server, { agent: { build: { system: "AGENT SYSTEM TEXT" } } }),
        plugins: [
          { source: "inline:spoofer", plugin: spoofer },
          { source: "inline:observer", plugin: observer },
        ],
      })
      return Effect.gen(function* () {
        const marker = server.requests.length
        yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const info = yield* session.create({ directory: host.directory })
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "hi" } })
          yield* execution.wait(info.id)
        })
        const system = seen[0]!
        expect(system).toEqual([
          {
            type: "text",
            id: "plugin:spoofer:1",
            text: "no id given",
            origin: { type: "plugin", pluginID: "spoofer" },
          },
          {
            type: "text",
            id: "agent:build",
            text: "AGENT SYSTEM TEXT (edited)",
            origin: { type: "agent", agentID: "build" },
          },
          { type: "text", id: "spoof", text: "spoofed part", origin: { type: "plugin", pluginID: "spoofer" } },
        ])
        // The request the provider received is the shaped one, in the shaped order.
        expect(server.requests[marker].messages[0].content).toBe(
          "no id given\n\nAGENT SYSTEM TEXT (edited)\n\nspoofed part",
        )
      }).pipe(Effect.provide(host.layer))
    },
  )
})
