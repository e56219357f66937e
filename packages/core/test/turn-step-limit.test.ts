import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterEach, beforeEach } from "vitest"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"

let server: OpenAIServer
// A server per test: replies a test leaves unconsumed must not reach the next one.
beforeEach(async () => {
  server = await startOpenAIServer()
})
afterEach(() => server.close())

const config = () => ({
  model: "local/test-model",
  provider: {
    local: {
      type: "openai-compatible" as const,
      baseURL: server.url,
      apiKey: "k",
      models: { "test-model": {}, "other-model": {} },
    },
  },
  agent: { build: { steps: 5 }, quick: { steps: 1, model: "local/other-model" } },
})

const toolCall = () => ({ toolCalls: [{ name: "list", arguments: { path: "." } }] })

describe("a turn resolves its agent, model and step limit once, from the latest prompt", () => {
  it.live("a prompt naming another agent runs under that agent's step limit and model", () => {
    const host = testHost({ config: config() })
    return Effect.gen(function* () {
      // Every reply asks for another tool call: only the step limit ends the turn.
      server.enqueue(toolCall(), toolCall(), toolCall(), toolCall(), toolCall(), toolCall())
      const before = server.requests.length
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory, agent: "build" })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "go" }, agent: "quick" })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      })
      const answers = items.filter((m): m is AssistantMessage => m.type === "assistant")
      expect(answers).toHaveLength(1)
      expect(server.requests.length - before).toBe(1)
      expect(answers[0]!.agent).toBe("quick")
      expect(answers[0]!.model).toEqual({ providerID: "local", id: "other-model" })
      expect(server.requests[before]!.model).toBe("other-model")
    }).pipe(Effect.provide(host.layer))
  })

  it.live("without a prompt agent the session's agent limit applies to every step", () => {
    const host = testHost({ config: config() })
    return Effect.gen(function* () {
      server.enqueue(toolCall(), toolCall(), toolCall(), toolCall(), toolCall(), toolCall(), toolCall())
      const before = server.requests.length
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory, agent: "build" })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "go" } })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      })
      const answers = items.filter((m): m is AssistantMessage => m.type === "assistant")
      expect(answers).toHaveLength(5)
      expect(server.requests.length - before).toBe(5)
      expect(new Set(answers.map((a) => a.agent))).toEqual(new Set(["build"]))
    }).pipe(Effect.provide(host.layer))
  })
})
