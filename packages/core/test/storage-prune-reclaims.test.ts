import { Effect, Exit } from "effect"
import { statSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { SessionEvent } from "../src/domain/event.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Prune } from "../src/maintenance/prune.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { databaseStats } from "../src/storage/stats.ts"
import { seedBulkySession } from "./support/bulky-session.ts"
import { testHost } from "./support/host.ts"

const fileBytes = (path: string) =>
  statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0)

describe("batch prune", () => {
  it.live(
    "pruning 50 MB of tool output shrinks the database file by at least 95% of it; prompts and final texts stay",
    () => {
      const host = testHost()
      return Effect.gen(function* () {
        const { sessionID, database } = yield* Effect.gen(function* () {
          const sessionID = yield* seedBulkySession({ turns: 50, toolBytes: 1_000_000, directory: host.directory })
          return { sessionID, database: yield* Database }
        })
        database.client.run("PRAGMA wal_checkpoint(TRUNCATE)")
        const before = fileBytes(database.path)
        const stats = databaseStats(database, { sessionID })
        expect(stats.sessions[0]!.items.tool).toBeGreaterThan(50_000_000)

        const { summary, items } = yield* Effect.gen(function* () {
          const prune = yield* Prune
          const session = yield* Session
          const summary = yield* prune.session({ sessionID, types: ["tool", "reasoning"], by: "user" })
          return { summary, items: (yield* session.messages(sessionID, { limit: 200 })).data }
        })
        const after = fileBytes(database.path)
        expect(summary).toMatchObject({ sessionID, messages: 50, items: 100 })
        expect(summary.bytes).toBeGreaterThan(50_000_000)
        expect(before - after).toBeGreaterThanOrEqual(0.95 * summary.bytes)

        const prompts = items.filter((m) => m.type === "user").map((m) => m.text)
        expect(prompts).toEqual(Array.from({ length: 50 }, (_, i) => `prompt ${i}`))
        const answers = items.filter((m): m is AssistantMessage => m.type === "assistant")
        // The reasoning item is gone (its id remembered); the tool call's item stays, its input and output
        // emptied and marked pruned; the final text is untouched.
        expect(answers.map((m) => m.content)).toEqual(
          Array.from({ length: 50 }, (_, i) => [
            {
              type: "tool",
              id: expect.stringMatching(/^prt_/),
              callID: `call_${i}`,
              name: "read",
              provider: { executed: false },
              state: { status: "completed", input: {}, structured: {}, content: [] },
              time: {
                created: expect.any(Number),
                ran: expect.any(Number),
                completed: expect.any(Number),
                pruned: expect.any(Number),
              },
              prunedBy: "user",
            },
            { id: expect.stringMatching(/^prt_/), type: "text", text: `final answer ${i}` },
          ]),
        )
        for (const answer of answers) expect(answer.removed).toHaveLength(1)
        // What is left of the tool calls is their emptied items, nothing of the output; no reasoning at all.
        const statsAfter = databaseStats(database, { sessionID })
        const prunedItems = answers.flatMap((m) => m.content.filter((item) => item.type === "tool"))
        expect(statsAfter.sessions[0]!.items).toMatchObject({
          tool: prunedItems.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0),
          reasoning: 0,
        })
        expect(statsAfter.sessions[0]!.items.tool).toBeLessThan(50 * 1_000)
      }).pipe(Effect.provide(host.layer))
    },
  )

  it.live("follows the mutation contract's busy rules and changes nothing when rejected", () => {
    const host = testHost()
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const prune = yield* Prune
        const bus = yield* Bus
        const sessionID = yield* seedBulkySession({ turns: 2, toolBytes: 1000, directory: host.directory })
        yield* bus.commit(sessionID, [draft(SessionEvent.TurnStarted, { turnID: "trn_hold", reason: "prompt" })])
        const busy = yield* Effect.exit(prune.session({ sessionID, types: ["tool"], by: "user" }))
        const missing = yield* Effect.exit(prune.session({ sessionID: "ses_missing", types: ["tool"], by: "user" }))
        const seq = (yield* (yield* Session).get(sessionID)).seq
        const messages = (yield* (yield* Session).messages(sessionID)).data
        return { busy, missing, seq, messages }
      })
      expect(Exit.isFailure(result.busy) && JSON.stringify(result.busy.cause)).toContain("Session.BusyError")
      expect(Exit.isFailure(result.missing) && JSON.stringify(result.missing.cause)).toContain("Session.NotFoundError")
      // 1 creation + 2 turns of 13 events + the turn start: the rejected prune committed nothing.
      expect(result.seq).toBe(28)
      const items = result.messages.flatMap((m) => (m.type === "assistant" ? m.content : []))
      expect(items.map((item) => item.type)).toEqual(["reasoning", "tool", "text", "reasoning", "tool", "text"])
      expect(items.some((item) => item.type === "tool" && item.time.pruned !== undefined)).toBe(false)
    }).pipe(Effect.provide(host.layer))
  })
})
