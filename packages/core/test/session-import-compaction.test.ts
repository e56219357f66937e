/**
 * A session exported after a compaction and imported again keeps its summary: the imported session sends
 * the model what the original sends (the summary, the restated prompt and what follows), not the whole
 * transcript the summary replaced.
 */
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import type { ConfigData } from "../src/config/config.ts"
import { COMPACTION_PROMPT } from "../src/turn/compaction.ts"
import { Execution } from "../src/turn/execution.ts"
import type { CompactionMessage, Message } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { toModelMessages } from "../src/turn/transcript.ts"
import { Transfer } from "../src/maintenance/transfer.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
  server.reply((body: any) =>
    body?.messages?.[0]?.content === COMPACTION_PROMPT
      ? { text: "SUMMARY: three prompts about the garden." }
      : { text: `noted ${body.messages.length}` },
  )
})
afterAll(() => server.close())

const config = (): ConfigData => ({
  model: "local/m",
  instructions: [],
  provider: { local: { type: "openai-compatible", baseURL: server.url, apiKey: "k", models: { m: {} } } },
})

describe("session import", () => {
  it.live("carries a compaction summary over, covering the same messages, so the model view is unchanged", () => {
    const host = testHost({ config: config() })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        for (const text of ["plant tulips", "water them", "add compost"]) {
          yield* execution.prompt({ sessionID: info.id, prompt: { text } })
          yield* execution.wait(info.id)
        }
        yield* execution.compact(info.id)
        yield* execution.wait(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "what next?" } })
        yield* execution.wait(info.id)
        // Export and import as the CLI does, through the maintenance service on the same database.
        const imported = yield* Effect.gen(function* () {
          const transfer = yield* Transfer
          const exported = yield* transfer.export(info.id)
          return yield* transfer.import(JSON.parse(JSON.stringify(exported)))
        }).pipe(Effect.provide(Transfer.layer))
        return {
          original: session.sync.transcript(info.id),
          copy: session.sync.transcript(imported.id),
        }
      })
      const summary = (messages: ReadonlyArray<Message>) =>
        messages.find((m): m is CompactionMessage => m.type === "compaction")
      const original = summary(result.original)!
      const copy = summary(result.copy)
      expect(original).toBeDefined()
      expect(copy).toBeDefined()
      expect(result.copy.map((m) => m.type)).toEqual(result.original.map((m) => m.type))
      // The same position in the transcript: `through` names the copy of the message the original named.
      const index = (messages: ReadonlyArray<Message>, seq: number) => messages.findIndex((m) => m.seq === seq)
      expect(index(result.copy, copy!.through)).toBe(index(result.original, original.through))
      expect(copy!.id).not.toBe(original.id)
      const view = (messages: ReadonlyArray<Message>) => JSON.stringify(toModelMessages(messages))
      expect(view(result.copy)).toBe(view(result.original))
      expect(view(result.copy)).toContain("SUMMARY: three prompts about the garden.")
      expect(view(result.copy)).not.toContain("plant tulips")
    }).pipe(Effect.provide(host.layer))
  })
})
