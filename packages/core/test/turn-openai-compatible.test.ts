import { Deferred, Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const config = () => ({
  model: "local/test-model",
  provider: {
    local: { type: "openai-compatible" as const, baseURL: server.url, apiKey: "k", models: { "test-model": {} } },
  },
  agent: { build: { system: "You are the test agent." } },
})

describe("a turn with the OpenAI-compatible provider against a local server", () => {
  it.live("streams text, a tool call, the tool result and a final text into content items with ids", () => {
    const host = testHost({ config: config() })
    return Effect.gen(function* () {
      writeFileSync(join(host.directory, "a.txt"), "alpha\n")
      server.enqueue(
        {
          reasoning: "let me look",
          text: "Reading the file.",
          toolCalls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" } }],
        },
        { text: "The file says alpha.", usage: { prompt_tokens: 30, completion_tokens: 6 } },
      )
      const before = server.requests.length
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "what is in a.txt?" } })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      })
      const [, first, second] = items as [unknown, AssistantMessage, AssistantMessage]
      expect(first.content.map((p) => p.type)).toEqual(["reasoning", "text", "tool"])
      for (const item of [...first.content, ...second.content]) expect(item.id).toMatch(/^prt_/)
      expect(first.content[1]).toMatchObject({ type: "text", text: "Reading the file." })
      expect(first.content[2]).toMatchObject({
        type: "tool",
        callID: "call_1",
        name: "read",
        state: { status: "completed", input: { path: "a.txt" } },
      })
      const tool = first.content[2]!
      expect(tool.type === "tool" && tool.state.status === "completed" && tool.state.content).toEqual([
        { type: "text", text: expect.stringContaining("alpha") },
      ])
      expect(second.content).toMatchObject([{ type: "text", text: "The file says alpha." }])
      expect(second.tokens).toEqual({ input: 30, output: 6, reasoning: 0, cache: { read: 0, write: 0 } })
      expect(second.model).toEqual({ providerID: "local", id: "test-model" })

      // The second request carried the tool call and its result back to the model.
      const request = server.requests[before + 1]
      expect(request.messages[0]).toMatchObject({ role: "system", content: "You are the test agent." })
      const toolMessage = request.messages.find((m: { role: string }) => m.role === "tool")
      expect(toolMessage.tool_call_id).toBe("call_1")
      expect(toolMessage.content).toContain("alpha")
    }).pipe(Effect.provide(host.layer))
  })

  it.live("interrupting mid-stream leaves a completed-and-marked message and releases the claim", () => {
    const host = testHost({ config: config() })
    return Effect.gen(function* () {
      server.enqueue({ text: "partial answer that goes on", hold: true })
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const bus = yield* Bus
        const info = yield* session.create({ directory: host.directory })
        // The interrupt comes once the host has streamed the first text, so there is a prefix to keep.
        const streamed = yield* Deferred.make<string>()
        const order: Array<string> = []
        bus.subscribe((event) => {
          if (event.type.startsWith("session.next.text.")) order.push(event.type)
          if (event.type === "session.next.text.delta")
            Deferred.doneUnsafe(streamed, Effect.succeed((event.data as { delta: string }).delta))
        })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "talk" } })
        yield* Effect.promise(() => server.held())
        const prefix = yield* Deferred.await(streamed)
        const during = (yield* session.get(info.id)).status
        yield* execution.interrupt(info.id)
        const after = yield* session.get(info.id)
        const claim = session.sync.claimed(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "next" } })
        yield* execution.wait(info.id)
        return { during, after, claim, prefix, order, items: (yield* session.messages(info.id)).data }
      })
      server.release()
      expect(result.during).toBe("busy")
      // A live subscriber sees the item start before its first delta, and its end after the interrupt.
      expect(result.order.slice(0, 2)).toEqual(["session.next.text.started", "session.next.text.delta"])
      expect(result.order).toContain("session.next.text.ended")
      expect(result.after.status).toBe("idle")
      expect(result.claim).toBeUndefined()
      const interrupted = result.items[1] as AssistantMessage
      expect(interrupted.time.completed).toBeDefined()
      expect(interrupted.error).toEqual({ type: "unknown", name: "Interrupted", message: "the turn was interrupted" })
      expect(interrupted.finish).toBe("interrupted")
      // The streamed prefix that arrived before the interrupt is kept as a text item.
      expect(interrupted.content).toEqual([
        { type: "text", id: expect.stringMatching(/^prt_/), text: expect.stringMatching(/^partial/) },
      ])
      expect((interrupted.content[0] as { text: string }).text.startsWith(result.prefix)).toBe(true)
      expect((result.items[3] as AssistantMessage).error).toBeUndefined()
    }).pipe(Effect.provide(host.layer))
  })
})
