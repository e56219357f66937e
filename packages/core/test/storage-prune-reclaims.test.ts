import { Effect, Exit } from "effect"
import { statSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { SessionEvent } from "../src/session/event.ts"
import type { AssistantMessage, Message } from "../src/session/message.ts"
import { Prune } from "../src/session/prune.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { databaseStats } from "../src/storage/stats.ts"
import { seedBulkySession } from "./support/bulky-session.ts"
import { makeHost } from "./support/host.ts"

const fileBytes = (path: string) =>
  statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0)

describe("batch prune", () => {
  it("pruning 50 MB of tool output shrinks the database file by at least 95% of it; prompts and final texts stay", async () => {
    const host = makeHost()
    const { sessionID, database } = await host.run(
      Effect.gen(function* () {
        const sessionID = yield* seedBulkySession({ turns: 50, toolBytes: 1_000_000, directory: host.directory })
        return { sessionID, database: yield* Database }
      }),
    )
    database.client.run("PRAGMA wal_checkpoint(TRUNCATE)")
    const before = fileBytes(database.path)
    const stats = databaseStats(database, { sessionID })
    expect(stats.sessions[0]!.parts.tool).toBeGreaterThan(50_000_000)

    const { summary, items } = await host.run(
      Effect.gen(function* () {
        const prune = yield* Prune
        const session = yield* Session
        const summary = yield* prune.session({ sessionID, types: ["tool", "reasoning"], by: "user" })
        return { summary, items: (yield* session.messages(sessionID, { limit: 200 })).items }
      }),
    )
    const after = fileBytes(database.path)
    expect(summary).toMatchObject({ sessionID, messages: 50, parts: 100 })
    expect(summary.bytes).toBeGreaterThan(50_000_000)
    expect(before - after).toBeGreaterThanOrEqual(0.95 * summary.bytes)

    const prompts = items
      .filter((m): m is Message => m.type === "user")
      .map((m) => (m.parts[0] as { text: string }).text)
    expect(prompts).toEqual(Array.from({ length: 50 }, (_, i) => `prompt ${i}`))
    const answers = items.filter((m): m is AssistantMessage => m.type === "assistant")
    expect(answers.map((m) => m.parts)).toEqual(
      Array.from({ length: 50 }, (_, i) => [{ id: expect.any(String), type: "text", text: `final answer ${i}` }]),
    )
    const statsAfter = databaseStats(database, { sessionID })
    expect(statsAfter.sessions[0]!.parts).toMatchObject({ tool: 0, reasoning: 0 })
    await host.dispose()
  })

  it("follows the mutation contract's busy rules and changes nothing when rejected", async () => {
    const host = makeHost()
    const result = await host.run(
      Effect.gen(function* () {
        const prune = yield* Prune
        const bus = yield* Bus
        const sessionID = yield* seedBulkySession({ turns: 2, toolBytes: 1000, directory: host.directory })
        yield* bus.commit(sessionID, [draft(SessionEvent.TurnStarted, { turnID: "trn_hold", reason: "prompt" })])
        const busy = yield* Effect.exit(prune.session({ sessionID, types: ["tool"], by: "user" }))
        const missing = yield* Effect.exit(prune.session({ sessionID: "ses_missing", types: ["tool"], by: "user" }))
        const seq = (yield* (yield* Session).get(sessionID)).seq
        return { busy, missing, seq }
      }),
    )
    expect(Exit.isFailure(result.busy) && JSON.stringify(result.busy.cause)).toContain("Session.BusyError")
    expect(Exit.isFailure(result.missing) && JSON.stringify(result.missing.cause)).toContain("Session.NotFoundError")
    expect(result.seq).toBe(18)
    await host.dispose()
  })
})
