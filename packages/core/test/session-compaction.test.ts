import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import type { ConfigData } from "../src/config/config.ts"
import { Erase } from "../src/maintenance/erase.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Database } from "../src/storage/database.ts"
import { COMPACTION_PROMPT } from "../src/turn/compaction.ts"
import { SUMMARY_HEADING } from "../src/turn/transcript.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, CompactionMessage, Message } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"

/**
 * Compaction against a local OpenAI-compatible server: automatic before a request that would not fit the
 * model's window, after the provider refuses one as too long, and on demand; what later requests carry;
 * what stays stored; the `compaction` hook; and compaction as a turn that holds the session.
 */

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const isSummaryRequest = (body: any) =>
  typeof body?.messages?.[0]?.content === "string" && body.messages[0].content === COMPACTION_PROMPT
const texts = (body: any): Array<string> =>
  body.messages.map((m: any) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))

const config = (limit?: { context: number; output: number }): ConfigData => ({
  model: "local/m",
  instructions: [],
  // A background title request would take replies scripted for the turns.
  title: { auto: false },
  provider: {
    local: { type: "openai-compatible", baseURL: server.url, apiKey: "k", models: { m: limit ? { limit } : {} } },
  },
})

/** Answers every request: summaries with a fixed summary, everything else with a short reply. */
const answer = (summary = "SUMMARY: the user sent several long prompts.") => {
  server.reply((body) =>
    isSummaryRequest(body)
      ? { text: summary, usage: { prompt_tokens: 900, completion_tokens: 20 } }
      : { text: "noted" },
  )
}

const prompt = (n: number) => `prompt ${n}: ${"lorem ipsum ".repeat(170)}`

describe("automatic compaction", () => {
  it.live(
    "summarises the older transcript before a request that would not fit; later requests carry the summary and what follows",
    () => {
      answer()
      const host = testHost({
        config: config({ context: 4500, output: 500 }),
        plugins: [
          {
            source: "inline:keeper",
            plugin: {
              id: "keeper",
              setup: (ctx) => {
                ctx.session.hook("compaction", (event) => {
                  event.context.push("the launch code is 42")
                })
              },
            },
          },
        ],
      })
      return Effect.gen(function* () {
        const start = server.requests.length
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const info = yield* session.create({ directory: host.directory })
          let n = 0
          while (!server.requests.slice(start).some(isSummaryRequest) && n < 10) {
            n++
            yield* execution.prompt({ sessionID: info.id, prompt: { text: prompt(n) } })
            yield* execution.wait(info.id)
          }
          // One more turn after the compaction.
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "and now a short one" } })
          yield* execution.wait(info.id)
          return { n, items: (yield* session.messages(info.id, { limit: 200 })).data }
        }).pipe(Effect.provide(host.layer))
        const requests = server.requests.slice(start)
        const summaryAt = requests.findIndex(isSummaryRequest)
        expect(summaryAt).toBeGreaterThan(0)
        expect(result.n).toBeGreaterThanOrEqual(2)

        // The summary request: the older prompts, the ask, and the plugin's addition.
        const summaryRequest = texts(requests[summaryAt])
        expect(summaryRequest.some((t) => t.includes("prompt 1:"))).toBe(true)
        expect(summaryRequest.some((t) => t.includes(`prompt ${result.n}:`))).toBe(false)
        expect(summaryRequest.at(-1)).toContain("the launch code is 42")

        // The request right after it: system, summary, then the latest prompt verbatim; nothing older.
        const next = texts(requests[summaryAt + 1])
        expect(next).toHaveLength(3)
        expect(next[1]).toContain("SUMMARY: the user sent several long prompts.")
        expect(next[1]).toContain(SUMMARY_HEADING)
        expect(next[2]).toContain(prompt(result.n))
        // The turn after that: still the summary and only what followed it.
        const last = texts(requests.at(-1))
        expect(last.some((t) => t.includes("prompt 1:"))).toBe(false)
        expect(last[1]).toContain("SUMMARY")
        expect(last.slice(2).map((t) => t.slice(0, 12))).toEqual([
          prompt(result.n).slice(0, 12),
          expect.any(String),
          "and now a sh",
        ])

        // Storage still lists every message; the compaction sits before the answer it made room for.
        const types = result.items.map((m) => m.type)
        expect(types.filter((t) => t === "user")).toHaveLength(result.n + 1)
        expect(types.filter((t) => t === "assistant")).toHaveLength(result.n + 1)
        const compaction = result.items.find((m): m is CompactionMessage => m.type === "compaction")!
        expect(compaction).toMatchObject({ origin: "host", reason: "auto", model: { providerID: "local", id: "m" } })
        expect(compaction.overflow).toBeUndefined()
        expect(compaction.summary).toBe("SUMMARY: the user sent several long prompts.")
        expect(compaction.tokens).toEqual({ input: 900, output: 20, reasoning: 0, cache: { read: 0, write: 0 } })
        const latestPrompt = result.items.filter((m) => m.type === "user").at(-2)!
        expect(compaction.through).toBeLessThan(latestPrompt.seq)
        expect(compaction.seq).toBeGreaterThan(latestPrompt.seq)
      })
    },
  )

  it.live("after the provider refuses a request as too long, compacts and retries the step once", () => {
    const host = testHost({ config: config() })
    return Effect.gen(function* () {
      answer("SUMMARY after overflow")
      const start = server.requests.length
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "an earlier prompt" } })
        yield* execution.wait(info.id)
        server.enqueue({ status: 400, error: "This model's maximum context length is 8192 tokens." })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "the prompt that overflows" } })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      }).pipe(Effect.provide(host.layer))
      const requests = server.requests.slice(start)
      expect(requests.filter(isSummaryRequest)).toHaveLength(1)
      const retried = texts(requests.at(-1))
      expect(retried[1]).toContain("SUMMARY after overflow")
      expect(retried[2]).toContain("the prompt that overflows")
      const last = items.at(-1) as AssistantMessage
      expect(last).toMatchObject({ type: "assistant", content: [{ type: "text", text: "noted" }] })
      expect(last.error).toBeUndefined()
      // The refused attempt is recorded, failed; the compaction came after it.
      const refused = items.filter((m): m is AssistantMessage => m.type === "assistant" && m.error !== undefined)
      expect(refused).toHaveLength(1)
      expect(refused[0]!.error!.message).toContain("maximum context length")
      expect(items.find((m) => m.type === "compaction")).toMatchObject({ reason: "auto", overflow: true })
    })
  })
})

describe("compaction.auto: false", () => {
  it.live(
    "never compacts on its own: a request over the limit goes as it is, an overflow fails saying how to compact, and compact still works",
    () => {
      const host = testHost({ config: { ...config({ context: 1200, output: 200 }), compaction: { auto: false } } })
      return Effect.gen(function* () {
        answer("SUMMARY on demand")
        const start = server.requests.length
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const info = yield* session.create({ directory: host.directory })
          // Far over the window: without automatic compaction the request is sent whole.
          for (const n of [1, 2, 3]) {
            yield* execution.prompt({ sessionID: info.id, prompt: { text: prompt(n) } })
            yield* execution.wait(info.id)
          }
          server.enqueue({ status: 400, error: "This model's maximum context length is 8192 tokens." })
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "the prompt that overflows" } })
          yield* execution.wait(info.id)
          const before = (yield* session.messages(info.id)).data
          yield* execution.compact(info.id)
          yield* execution.wait(info.id)
          return { sessionID: info.id, before, after: (yield* session.messages(info.id)).data }
        }).pipe(Effect.provide(host.layer))
        const requests = server.requests.slice(start)
        // Four answers and one summary, the summary only after `compact` was asked for.
        expect(requests.filter(isSummaryRequest)).toHaveLength(1)
        expect(isSummaryRequest(requests.at(-1))).toBe(true)
        expect(result.before.some((m) => m.type === "compaction")).toBe(false)
        const refused = result.before.at(-1) as AssistantMessage
        expect(refused.error!.message).toContain("maximum context length")
        expect(refused.error!.message).toContain("compaction.auto: false")
        expect(refused.error!.message).toContain(`POST /api/session/${result.sessionID}/compact`)
        expect(result.after.find((m) => m.type === "compaction")).toMatchObject({
          reason: "manual",
          summary: "SUMMARY on demand",
        })
      })
    },
  )
})

describe("manual compaction", () => {
  it.live(
    "is a turn: holds the session (mutations 409) and summarises only content that was not corrected, retracted or removed",
    () => {
      const host = testHost({ config: config() })
      return Effect.gen(function* () {
        writeFileSync(join(host.directory, "secret.txt"), "TOOL-OUTPUT-REMOVED\n")
        server.reply((body) => (isSummaryRequest(body) ? { text: "SUMMARY manual", hold: true } : { text: "noted" }))
        const start = server.requests.length
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const mutation = yield* Mutation
          const info = yield* session.create({ directory: host.directory })
          const sessionID = info.id
          const retracted = yield* execution.prompt({ sessionID, prompt: { text: "RETRACTED-SECRET" } })
          yield* execution.wait(sessionID)
          const corrected = yield* execution.prompt({ sessionID, prompt: { text: "OLD-TEXT" } })
          yield* execution.wait(sessionID)
          server.enqueue(
            { toolCalls: [{ id: "call_s", name: "read", arguments: { path: "secret.txt" } }] },
            { text: "read it" },
          )
          yield* execution.prompt({ sessionID, prompt: { text: "read the file" } })
          yield* execution.wait(sessionID)
          const items = (yield* session.messages(sessionID)).data
          const withTool = items.find(
            (m): m is AssistantMessage => m.type === "assistant" && m.content.some((p) => p.type === "tool"),
          )!
          yield* mutation.retract({ sessionID, messageID: retracted.id, by: "user" })
          yield* mutation.correct({ sessionID, messageID: corrected.id, text: "NEW-TEXT", by: "user" })
          yield* mutation.removeItem({
            sessionID,
            messageID: withTool.id,
            itemID: withTool.content.find((p) => p.type === "tool")!.id,
            by: "user",
          })
          yield* execution.prompt({ sessionID, prompt: { text: "the latest prompt" } })
          yield* execution.wait(sessionID)

          yield* execution.compact(sessionID)
          yield* Effect.promise(() => server.held())
          const during = (yield* session.get(sessionID)).status
          const busy = yield* Effect.flip(mutation.retract({ sessionID, messageID: corrected.id, by: "user" }))
          const again = yield* Effect.flip(execution.compact(sessionID))
          server.release()
          yield* execution.wait(sessionID)
          const after = (yield* session.messages(sessionID)).data
          return { during, busy, again, after }
        }).pipe(Effect.provide(host.layer))
        expect(result.during).toBe("busy")
        expect(result.busy._tag).toBe("Session.BusyError")
        expect(result.again._tag).toBe("Session.BusyError")
        const summary = JSON.stringify(server.requests.slice(start).find(isSummaryRequest))
        expect(summary).toContain("NEW-TEXT")
        expect(summary).not.toContain("OLD-TEXT")
        expect(summary).not.toContain("RETRACTED-SECRET")
        expect(summary).not.toContain("TOOL-OUTPUT-REMOVED")
        // The latest prompt was answered and is not summarised: it stays verbatim after the summary.
        expect(summary).not.toContain("the latest prompt")
        const compaction = result.after.at(-1) as Message
        expect(compaction).toMatchObject({ type: "compaction", reason: "manual", summary: "SUMMARY manual" })
      })
    },
  )
})

describe("retracting a compaction", () => {
  it.live(
    "removes the summary: the next request sends the whole transcript again, and the summary text is gone from storage",
    () => {
      answer("SUMMARY-TO-RETRACT")
      const host = testHost({ config: config() })
      return Effect.gen(function* () {
        const start = server.requests.length
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const mutation = yield* Mutation
          const info = yield* session.create({ directory: host.directory })
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "EARLY-PROMPT" } })
          yield* execution.wait(info.id)
          yield* execution.compact(info.id)
          yield* execution.wait(info.id)
          const compaction = (yield* session.messages(info.id)).data.at(-1)!
          const retracted = yield* mutation.retract({ sessionID: info.id, messageID: compaction.id, by: "user" })
          const mark = server.requests.length
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "LATER-PROMPT" } })
          yield* execution.wait(info.id)
          const stored = JSON.stringify(projectionSnapshot((yield* Database).client))
          return { compaction, retracted, next: server.requests.slice(mark), stored }
        }).pipe(Effect.provide(host.layer))
        expect(server.requests.slice(start).some(isSummaryRequest)).toBe(true)
        expect(result.retracted).toMatchObject({
          id: result.compaction.id,
          seq: result.compaction.seq,
          type: "compaction",
          summary: "",
          placeholder: "[A summary was retracted.]",
          retracted: { by: "user" },
        })
        const sent = texts(result.next.find((body) => !isSummaryRequest(body))).join("\n")
        expect(sent).toContain("EARLY-PROMPT")
        expect(sent).toContain("LATER-PROMPT")
        expect(sent).not.toContain("SUMMARY-TO-RETRACT")
        expect(sent).not.toContain(SUMMARY_HEADING)
        expect(result.stored).not.toContain("SUMMARY-TO-RETRACT")
      })
    },
  )
})

describe("compaction in the journal", () => {
  it.live("replays to the live projection, and a corrected summary's old text is erased from the journal", () => {
    const host = testHost({ config: { ...config(), events: { persist: true } } })
    return Effect.gen(function* () {
      answer("SUMMARY-ORIGINAL-TEXT")
      const { sessionID, database } = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "one" } })
        yield* execution.wait(info.id)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "two" } })
        yield* execution.wait(info.id)
        yield* execution.compact(info.id)
        yield* execution.wait(info.id)
        const compaction = (yield* session.messages(info.id)).data.at(-1)!
        expect(compaction).toMatchObject({ type: "compaction", summary: "SUMMARY-ORIGINAL-TEXT" })
        const corrected = yield* (yield* Mutation).correct({
          sessionID: info.id,
          messageID: compaction.id,
          text: "SUMMARY-CORRECTED",
          by: "user",
        })
        expect(corrected).toMatchObject({
          id: compaction.id,
          seq: compaction.seq,
          type: "compaction",
          summary: "SUMMARY-CORRECTED",
          corrected: { by: "user" },
        })
        return { sessionID: info.id, database: yield* Database }
      })
      const journaled = () =>
        (
          database.client.query("SELECT data FROM event WHERE aggregate_id = ?").all(sessionID) as Array<{
            data: string
          }>
        )
          .map((r) => r.data)
          .join("\n")
      expect(journaled()).toContain("SUMMARY-ORIGINAL-TEXT")
      const target = Database.open(":memory:")
      replay(database.client, target, makeSessionProjector(target.client))
      expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(database.client))
      expect(JSON.stringify(projectionSnapshot(target.client))).toContain("SUMMARY-CORRECTED")
      target.client.close()

      yield* Effect.gen(function* () {
        return yield* (yield* Erase).session({ sessionID, by: "user" })
      })
      expect(journaled()).not.toContain("SUMMARY-ORIGINAL-TEXT")
      expect(journaled()).toContain("SUMMARY-CORRECTED")
    }).pipe(Effect.provide(host.layer))
  })
})
