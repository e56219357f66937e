import { Cause, Effect, Exit, Fiber, Stream } from "effect"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { afterEach, beforeEach } from "vitest"
import { makeOpenAICompatible } from "../src/provider/openai-compatible.ts"
import { ProviderError, type ProviderEvent } from "../src/provider/provider.ts"
import type { ModelRequest } from "../src/domain/model-request.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { readUntil } from "./support/stream.ts"
import { tempDir } from "./support/tmp.ts"

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: { providerID: "local", id: "test-model" },
  system: [],
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
  ...overrides,
})

const collect = (url: string, req: ModelRequest = request()) =>
  Stream.runCollect(makeOpenAICompatible({ providerID: "local", modelID: "test-model", baseURL: url }).stream(req))

/** Run the stream expecting failure; returns the typed error. */
const failure = (url: string, req: ModelRequest = request()) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(collect(url, req))
    if (Exit.isSuccess(exit)) throw new Error(`expected failure, got ${JSON.stringify(exit.value)}`)
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag !== "Some") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
    return error.value
  })

/** A Bun server on loopback for one test, stopped when the test ends. */
const serve = (fetch: (request: Request) => Response) =>
  Effect.acquireRelease(
    Effect.sync(() => Bun.serve({ hostname: "127.0.0.1", port: 0, fetch })),
    (server) => Effect.promise(() => server.stop(true)),
  )

const texts = (events: ReadonlyArray<ProviderEvent>, type: "text-delta" | "reasoning-delta") =>
  events.flatMap((e) => (e.type === type ? [e.text] : []))

describe("openai-compatible provider", () => {
  let server: OpenAIServer
  beforeEach(async () => {
    server = await startOpenAIServer()
  })
  afterEach(async () => {
    await server.close()
  })

  it.effect("streams text deltas, then finish with mapped usage", () =>
    Effect.gen(function* () {
      server.enqueue({ text: "Hello there, world!", usage: { prompt_tokens: 12, completion_tokens: 7 } })
      const events = yield* collect(server.url)
      const deltas = texts(events, "text-delta")
      expect(deltas.length).toBeGreaterThan(1)
      expect(deltas.join("")).toBe("Hello there, world!")
      expect(events.at(-1)).toEqual({ type: "finish", reason: "stop", usage: { input: 12, output: 7 } })
      expect(events.filter((e) => e.type === "finish")).toHaveLength(1)
    }),
  )

  it.effect("streams reasoning deltas before the text and reports reasoning tokens", () =>
    Effect.gen(function* () {
      server.enqueue({
        reasoning: "Let me think about it.",
        text: "Answer.",
        usage: { prompt_tokens: 5, completion_tokens: 9, reasoning_tokens: 4 },
      })
      const events = yield* collect(server.url)
      expect(texts(events, "reasoning-delta").join("")).toBe("Let me think about it.")
      expect(texts(events, "text-delta").join("")).toBe("Answer.")
      const firstText = events.findIndex((e) => e.type === "text-delta")
      const lastReasoning = events.findLastIndex((e) => e.type === "reasoning-delta")
      expect(lastReasoning).toBeLessThan(firstText)
      expect(events.at(-1)).toEqual({ type: "finish", reason: "stop", usage: { input: 5, output: 9, reasoning: 4 } })
    }),
  )

  it.effect("assembles a tool call split across chunks into one tool-call event with parsed input", () =>
    Effect.gen(function* () {
      const args = { path: "src/index.ts", lines: [1, 2, 3], options: { recursive: true } }
      server.enqueue({ text: "Reading.", toolCalls: [{ id: "call_abc", name: "read", arguments: args }] })
      const events = yield* collect(
        server.url,
        request({
          tools: [
            {
              name: "read",
              description: "Read a file",
              parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
            },
          ],
        }),
      )
      const calls = events.filter((e) => e.type === "tool-call")
      expect(calls).toEqual([{ type: "tool-call", callID: "call_abc", tool: "read", input: args }])
      expect(events.at(-1)).toMatchObject({ type: "finish", reason: "tool-calls" })
    }),
  )

  it.effect("reports several tool calls in one step", () =>
    Effect.gen(function* () {
      server.enqueue({
        toolCalls: [
          { id: "c1", name: "read", arguments: { path: "a" } },
          { id: "c2", name: "read", arguments: { path: "b" } },
        ],
      })
      const events = yield* collect(
        server.url,
        request({ tools: [{ name: "read", description: "Read", parameters: { type: "object", properties: {} } }] }),
      )
      expect(events.filter((e) => e.type === "tool-call")).toEqual([
        { type: "tool-call", callID: "c1", tool: "read", input: { path: "a" } },
        { type: "tool-call", callID: "c2", tool: "read", input: { path: "b" } },
      ])
    }),
  )

  it.effect("sends system text, the conversation, tool results and tool schemas", () =>
    Effect.gen(function* () {
      const schema = {
        type: "object",
        properties: { path: { type: "string", description: "file to read" } },
        required: ["path"],
        additionalProperties: false,
      }
      yield* collect(
        server.url,
        request({
          system: [
            { type: "text", id: "s1", text: "You are a careful agent.", origin: { type: "host", name: "default" } },
            { type: "text", id: "s2", text: "Project rules: be brief.", origin: { type: "instructions" } },
          ],
          messages: [
            { role: "user", content: [{ type: "text", text: "What is in a.txt?" }] },
            {
              role: "assistant",
              content: [
                { type: "reasoning", text: "I should read it." },
                { type: "text", text: "Let me look." },
                { type: "tool-call", callID: "call_1", tool: "read", input: { path: "a.txt" } },
              ],
            },
            {
              role: "tool",
              content: [
                { type: "tool-result", callID: "call_1", tool: "read", output: "hello from a", isError: false },
              ],
            },
            {
              role: "assistant",
              content: [{ type: "tool-call", callID: "call_2", tool: "read", input: { path: "b.txt" } }],
            },
            {
              role: "tool",
              content: [
                { type: "tool-result", callID: "call_2", tool: "read", output: "ENOENT: b.txt", isError: true },
              ],
            },
            { role: "user", content: [{ type: "text", text: "Thanks." }] },
          ],
          tools: [{ name: "read", description: "Read a file", parameters: schema }],
        }),
      )
      expect(server.requests).toHaveLength(1)
      const body = server.requests[0]
      expect(body.model).toBe("test-model")
      expect(body.stream).toBe(true)
      expect(body.messages[0]).toEqual({
        role: "system",
        content: "You are a careful agent.\n\nProject rules: be brief.",
      })
      expect(body.messages.slice(1)).toMatchObject([
        { role: "user", content: "What is in a.txt?" },
        {
          role: "assistant",
          content: "Let me look.",
          reasoning_content: "I should read it.",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "hello from a" },
        {
          role: "assistant",
          tool_calls: [{ id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"b.txt"}' } }],
        },
        { role: "tool", tool_call_id: "call_2", content: "ENOENT: b.txt" },
        { role: "user", content: "Thanks." },
      ])
      expect(body.messages).toHaveLength(7)
      expect(body.tools).toEqual([
        { type: "function", function: { name: "read", description: "Read a file", parameters: schema } },
      ])
    }),
  )

  it.effect("sends the api key and extra headers", () =>
    Effect.gen(function* () {
      const seen: Array<Headers> = []
      const probe = yield* serve((req) => {
        seen.push(req.headers)
        return new Response("nope", { status: 418 })
      })
      const client = makeOpenAICompatible({
        providerID: "local",
        modelID: "m",
        baseURL: `http://127.0.0.1:${probe.port}/v1`,
        apiKey: "sk-test",
        headers: { "x-extra": "yes" },
      })
      yield* Effect.exit(Stream.runCollect(client.stream(request())))
      expect(seen[0]?.get("authorization")).toBe("Bearer sk-test")
      expect(seen[0]?.get("x-extra")).toBe("yes")
    }),
  )

  it.effect("turns an HTTP 500 into a ProviderError with status 500", () =>
    Effect.gen(function* () {
      server.enqueue({ status: 500, error: "the model is on fire" })
      const error = yield* failure(server.url)
      expect(error).toBeInstanceOf(ProviderError)
      expect(error.providerID).toBe("local")
      expect(error.status).toBe(500)
      expect(error.message).toContain("the model is on fire")
      expect(error.message).not.toMatch(/\n\s+at /)
      // No retries inside the provider.
      expect(server.requests).toHaveLength(1)
    }),
  )

  it.effect("turns an HTTP 401 into a ProviderError with status 401", () =>
    Effect.gen(function* () {
      server.enqueue({ status: 401, error: "invalid api key" })
      const error = yield* failure(server.url)
      expect(error.status).toBe(401)
      expect(error.message).toContain("invalid api key")
    }),
  )

  it.effect("turns connection refused into a ProviderError", () =>
    Effect.gen(function* () {
      const gone = yield* Effect.promise(() => startOpenAIServer())
      const url = gone.url
      yield* Effect.promise(() => gone.close())
      const error = yield* failure(url)
      expect(error).toBeInstanceOf(ProviderError)
      expect(error.providerID).toBe("local")
      expect(error.status).toBeUndefined()
      expect(error.message.length).toBeGreaterThan(0)
      expect(error.message).not.toMatch(/\n\s+at /)
    }),
  )

  it.effect("turns a malformed stream into a ProviderError", () =>
    Effect.gen(function* () {
      const bad = yield* serve(
        () =>
          new Response('data: {"choices": "not-an-array"\n\ndata: [DONE]\n\n', {
            headers: { "content-type": "text/event-stream" },
          }),
      )
      const error = yield* failure(`http://127.0.0.1:${bad.port}/v1`)
      expect(error).toBeInstanceOf(ProviderError)
      expect(error.providerID).toBe("local")
    }),
  )

  it.effect("is lazy: nothing is sent until the stream runs", () =>
    Effect.gen(function* () {
      const stream = makeOpenAICompatible({ providerID: "local", modelID: "m", baseURL: server.url }).stream(request())
      expect(server.requests).toHaveLength(0)
      yield* Stream.runCollect(stream)
      expect(server.requests).toHaveLength(1)
    }),
  )

  it.effect("aborts the HTTP request when the stream is interrupted mid-stream", () =>
    Effect.gen(function* () {
      server.enqueue({ text: "a long answer that never finishes", hold: true })
      const client = makeOpenAICompatible({ providerID: "local", modelID: "test-model", baseURL: server.url })
      const seen: Array<ProviderEvent> = []
      let firstEvent!: () => void
      const gotFirst = new Promise<void>((resolve) => {
        firstEvent = resolve
      })
      const fiber = yield* Effect.forkChild(
        client.stream(request()).pipe(
          Stream.runForEach((event) =>
            Effect.sync(() => {
              seen.push(event)
              firstEvent()
            }),
          ),
        ),
      )
      yield* Effect.promise(() => server.held())
      yield* Effect.promise(() => gotFirst)
      expect(seen[0]?.type).toBe("text-delta")
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAborted(1))
      expect(server.aborted).toBe(1)
      expect(seen.some((e) => e.type === "finish")).toBe(false)
    }),
  )

  it.effect("a held reply completes normally after release", () =>
    Effect.gen(function* () {
      server.enqueue({ text: "first part and the rest", hold: true })
      const run = yield* Effect.forkChild(collect(server.url))
      yield* Effect.promise(() => server.held())
      server.release()
      const events = yield* Fiber.join(run)
      expect(texts(events, "text-delta").join("")).toBe("first part and the rest")
      expect(events.at(-1)).toMatchObject({ type: "finish", reason: "stop" })
      expect(server.aborted).toBe(0)
    }),
  )

  it.effect("uses the reply handler, and the default echo reply", () =>
    Effect.gen(function* () {
      const plain = yield* collect(server.url)
      expect(texts(plain, "text-delta").join("")).toBe("ok")
      server.reply((body, index) => ({ text: `#${index}: ${body.messages.at(-1).content}` }))
      const events = yield* collect(
        server.url,
        request({ messages: [{ role: "user", content: [{ type: "text", text: "ping" }] }] }),
      )
      expect(texts(events, "text-delta").join("")).toBe("#1: ping")
    }),
  )

  it.effect("the server also runs as a separate process (CLI entry)", () =>
    Effect.gen(function* () {
      const file = join(tempDir("openai-server-"), "replies.json")
      yield* Effect.promise(() => Bun.write(file, JSON.stringify([{ text: "from the child process" }])))
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          Bun.spawn([process.execPath, fileURLToPath(new URL("./support/openai-server.ts", import.meta.url)), file], {
            stdout: "pipe",
            stderr: "inherit",
          }),
        ),
        (child) =>
          Effect.promise(() => {
            child.kill()
            return child.exited
          }),
      )
      const url = yield* Effect.promise(() => firstLine(child.stdout))
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
      const first = yield* collect(url)
      expect(texts(first, "text-delta").join("")).toBe("from the child process")
      const second = yield* collect(url)
      expect(texts(second, "text-delta").join("")).toBe("ok")
    }),
  )
})

const firstLine = async (stream: ReadableStream<Uint8Array>): Promise<string> => {
  const { text, reader } = await readUntil(stream, (text) => text.includes("\n"))
  reader.releaseLock()
  if (!text.includes("\n")) throw new Error(`child exited before printing its URL: ${text}`)
  return text.slice(0, text.indexOf("\n"))
}
