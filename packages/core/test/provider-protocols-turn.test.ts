import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Bus } from "../src/bus/bus.ts"
import type { ConfigData } from "../src/config/config.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { startAnthropicServer } from "./support/anthropic-server.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer } from "./support/openai-server.ts"
import { startResponsesServer } from "./support/responses-server.ts"
import type { Reply } from "./support/scripted-server.ts"

/**
 * One turn with a tool call through each wire protocol, against local servers speaking it: streamed text,
 * reasoning, the tool run by the host, the result sent back in the protocol's own shape, usage recorded.
 */

interface Case {
  readonly type: "anthropic" | "openai" | "openai-compatible"
  readonly start: () => Promise<{
    url: string
    enqueue(...replies: Array<Reply>): void
    requests(): Array<any>
    headers(): Array<Record<string, string>>
    close(): Promise<void>
  }>
  /** Finds the tool result the second request carried back, as text. */
  readonly toolResult: (body: any) => string
}

const scripted = async (start: typeof startAnthropicServer) => {
  const server = await start()
  return {
    url: server.url,
    enqueue: (...replies: Array<Reply>) => server.enqueue(...replies),
    requests: () => server.requests.map((r) => r.body),
    headers: () => server.requests.map((r) => r.headers),
    close: () => server.close(),
  }
}

const cases: Array<Case> = [
  {
    type: "anthropic",
    start: () => scripted(startAnthropicServer),
    toolResult: (body) =>
      JSON.stringify(
        body.messages
          .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
          .find((c: any) => c.type === "tool_result"),
      ),
  },
  {
    type: "openai",
    start: () => scripted(startResponsesServer),
    toolResult: (body) => JSON.stringify(body.input.find((item: any) => item.type === "function_call_output")),
  },
  {
    type: "openai-compatible",
    start: async () => {
      const server = await startOpenAIServer()
      return {
        url: server.url,
        enqueue: (...replies: Array<Reply>) =>
          server.enqueue(
            ...replies.map((r) => ({
              ...(r.text ? { text: r.text } : {}),
              ...(r.reasoning ? { reasoning: r.reasoning } : {}),
              ...(r.toolCalls ? { toolCalls: r.toolCalls } : {}),
              ...(r.usage ? { usage: { prompt_tokens: r.usage.input, completion_tokens: r.usage.output } } : {}),
            })),
          ),
        requests: () => server.requests,
        headers: () => [],
        close: () => server.close(),
      }
    },
    toolResult: (body) => JSON.stringify(body.messages.find((m: any) => m.role === "tool")),
  },
]

describe.each(cases)("a turn through the $type protocol", ({ type, start, toolResult }) => {
  it.live("streams reasoning and text, runs the tool call, sends the result back and records usage", () =>
    Effect.gen(function* () {
      // The protocol's server, closed when the test ends.
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => start()),
        (server) => Effect.promise(() => server.close()),
      )
      const config: ConfigData = {
        model: "mock/test-model",
        provider: {
          mock: {
            type,
            baseURL: server.url,
            apiKey: "sk-test",
            models: { "test-model": { limit: { context: 100_000, output: 1_000 } } },
          },
        },
      }
      const host = testHost({ config })
      writeFileSync(join(host.directory, "a.txt"), "alpha\n")
      server.enqueue(
        {
          reasoning: "I should read the file.",
          text: "Reading it now.",
          toolCalls: [{ id: "call_a", name: "read", arguments: { path: "a.txt" } }],
          usage: { input: 40, output: 11 },
        },
        { text: "The file says alpha.", usage: { input: 60, output: 6 } },
      )
      const deltas: Array<{ type: string; item: string; delta: string }> = []
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        const unsubscribe = (yield* Bus).subscribe((event) => {
          if (event.sessionID !== info.id) return
          if (event.type === "session.next.text.delta" || event.type === "session.next.reasoning.delta") {
            const data = event.data as { textID?: string; reasoningID?: string; delta: string }
            deltas.push({ type: event.type, item: (data.textID ?? data.reasoningID)!, delta: data.delta })
          }
        })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "what is in a.txt?" } })
        yield* execution.wait(info.id)
        unsubscribe()
        return (yield* session.messages(info.id)).data
      }).pipe(Effect.provide(host.layer))
      // Streamed: several live deltas per item, which add up to the stored text of the item they name.
      const streamed = (type: string) => deltas.filter((d) => d.type === type).map((d) => d.delta)
      expect(streamed("session.next.text.delta").length).toBeGreaterThan(2)
      expect(streamed("session.next.text.delta").join("")).toBe("Reading it now.The file says alpha.")
      expect(streamed("session.next.reasoning.delta").join("")).toBe("I should read the file.")
      const [, first, second] = items as [unknown, AssistantMessage, AssistantMessage]
      for (const item of [...first.content, ...second.content])
        if (item.type !== "tool")
          expect(
            deltas
              .filter((d) => d.item === item.id)
              .map((d) => d.delta)
              .join(""),
          ).toBe(item.text)
      expect(first.error).toBeUndefined()
      expect(first.content.map((p) => p.type)).toEqual(["reasoning", "text", "tool"])
      expect(first.content[0]).toMatchObject({ type: "reasoning", text: "I should read the file." })
      expect(first.content[1]).toMatchObject({ type: "text", text: "Reading it now." })
      expect(first.content[2]).toMatchObject({
        type: "tool",
        callID: "call_a",
        name: "read",
        state: { status: "completed", input: { path: "a.txt" } },
      })
      expect(first.tokens).toMatchObject({ input: 40, output: 11 })
      expect(second.error).toBeUndefined()
      expect(second.content).toMatchObject([{ type: "text", text: "The file says alpha." }])
      expect(second.tokens).toMatchObject({ input: 60, output: 6 })
      expect(second.model).toEqual({ providerID: "mock", id: "test-model" })

      const bodies = server.requests()
      expect(bodies).toHaveLength(2)
      expect(bodies[0].stream).toBe(true)
      expect(bodies[0].model).toBe("test-model")
      // The tool's output went back to the model in the protocol's shape, under the model's call id.
      const result = toolResult(bodies[1])
      expect(result).toContain("call_a")
      expect(result).toContain("alpha")
      if (type === "anthropic") {
        expect(server.headers()[0]!["x-api-key"]).toBe("sk-test")
        expect(bodies[0].max_tokens).toBe(1_000)
      }
      if (type === "openai") expect(server.headers()[0]!.authorization).toBe("Bearer sk-test")
    }),
  )
})
