import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { afterEach, vi } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { parseConfig } from "../src/config/config.ts"
import { SessionEvent } from "../src/domain/event.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Erase } from "../src/maintenance/erase.ts"
import { Prune } from "../src/maintenance/prune.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { MaintenanceLayer } from "../src/host.ts"
import { Retention, type RetentionPolicy } from "../src/maintenance/retention.ts"
import { databaseStats } from "../src/storage/stats.ts"
import { seedBulkySession } from "./support/bulky-session.ts"
import { applyOps, opsArbitrary } from "./support/random-history.ts"
import { tempDb } from "./support/tmp.ts"

/**
 * Retention on a seeded database. The clock is the test's: every session is seeded at a chosen age
 * (the TestClock, and Date.now for the ids, stand at that time while its events commit), and retention
 * runs at a fixed `now`.
 */

afterEach(() => vi.restoreAllMocks())

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 1)
const POLICY: RetentionPolicy = { prune: 14 * DAY, delete: 180 * DAY, journal: 30 * DAY }

const replayed = (client: Database["Service"]["client"]) => {
  const target = Database.open(":memory:")
  try {
    replay(client, target, makeSessionProjector(target.client))
    return projectionSnapshot(target.client)
  } finally {
    target.client.close()
  }
}

/** Everything a run may change: the projection, the journal and the journal bases. */
const everything = (client: Database["Service"]["client"]): Record<string, Array<any>> => ({
  ...projectionSnapshot(client),
  event: client.query("SELECT * FROM event ORDER BY position").all(),
  journal_base: client.query("SELECT * FROM journal_base ORDER BY session_id").all(),
  retention_run: client.query("SELECT * FROM retention_run").all(),
})

/** A fresh maintenance store (the store plus prune, erase and retention) on its own SQLite file. */
const maintenance = () => MaintenanceLayer({ path: tempDb(), persist: true })

const seeded = Effect.gen(function* () {
  let now = NOW
  vi.spyOn(Date, "now").mockImplementation(() => now)
  const at = <A, E, R>(age: number, effect: Effect.Effect<A, E, R>) =>
    Effect.sync(() => (now = NOW - age)).pipe(Effect.andThen(TestClock.setTime(NOW - age)), Effect.andThen(effect))
  const seed = (age: number) => at(age, seedBulkySession({ turns: 3, toolBytes: 2_000, directory: "/tmp" }))
  const ancient = yield* seed(200 * DAY)
  const old = yield* seed(60 * DAY)
  const recent = yield* seed(20 * DAY)
  const fresh = yield* seed(1 * DAY)
  // Old, but a turn holds it (a killed process left the claim): retention leaves it alone.
  const claimed = yield* seed(300 * DAY)
  yield* at(
    300 * DAY,
    (yield* Bus).commit(claimed, [draft(SessionEvent.TurnStarted, { turnID: "trn_held", reason: "prompt" })]),
  )
  yield* TestClock.setTime(NOW)
  now = NOW
  return { ancient, old, recent, fresh, claimed }
})

const toolItems = (messages: ReadonlyArray<unknown>) =>
  messages
    .filter((m): m is AssistantMessage => (m as AssistantMessage).type === "assistant")
    .flatMap((m) => m.content)
    .filter((i) => i.type === "tool" || i.type === "reasoning")

describe("storage retention", () => {
  it.effect("a dry run lists what it would do and changes nothing", () =>
    Effect.gen(function* () {
      const ids = yield* seeded
      const { client } = yield* Database
      const before = everything(client)
      const plan = yield* (yield* Retention).plan(POLICY)
      expect(plan.delete.map((d) => d.sessionID)).toEqual([ids.ancient])
      expect(plan.prune.map((p) => p.sessionID).sort()).toEqual([ids.old, ids.recent].sort())
      expect(plan.prune.every((p) => p.messages === 3 && p.items === 6)).toBe(true)
      expect(plan.journal.map((j) => j.sessionID)).toEqual([ids.old])
      expect(everything(client)).toEqual(before)
    }).pipe(Effect.provide(maintenance())),
  )

  it.effect("prunes, deletes and compacts the journal by age; replay from the snapshot equals the projection", () =>
    Effect.gen(function* () {
      const ids = yield* seeded
      const database = yield* Database
      const session = yield* Session
      const retention = yield* Retention
      const { client } = database
      const claimedBefore = everything(client).session_message!.filter((m: any) => m.session_id === ids.claimed)
      const journalOf = (id: string) =>
        client
          .query<{ seq: number; type: string }, [string]>(
            "SELECT seq, type FROM event WHERE aggregate_id = ? ORDER BY seq",
          )
          .all(id)
      const freshJournal = journalOf(ids.fresh)
      const recentJournal = journalOf(ids.recent).length

      const summary = yield* retention.run(POLICY)
      expect(summary).toMatchObject({
        time: NOW,
        dryRun: false,
        pruned: { sessions: 2, messages: 6, items: 12 },
        deleted: { sessions: 1 },
        journal: { sessions: 1 },
      })
      expect(summary.pruned.bytes).toBeGreaterThan(6 * 2_000)

      const messages = (id: string) => Effect.map(session.messages(id), (p) => p.data)
      // Deleted: no row; its journal keeps only the deletion (the id stays reserved).
      expect(yield* Effect.exit(session.get(ids.ancient))).toMatchObject({ _tag: "Failure" })
      expect(journalOf(ids.ancient).map((e) => e.type)).toEqual(["session.next.deleted"])
      // Pruned: tool items emptied and marked, reasoning removed, final texts kept (announced by an event).
      for (const id of [ids.old, ids.recent]) {
        const items = toolItems(yield* messages(id))
        expect(items.every((i) => i.type === "tool" && i.time.pruned !== undefined)).toBe(true)
        expect(journalOf(id).some((e) => e.type === "session.next.pruned") || id === ids.old).toBe(true)
      }
      expect(JSON.stringify(yield* messages(ids.old))).toContain("final answer 2")
      // Compacted: the old session's journal is gone, its snapshot is the base; the recent one's is whole.
      expect(journalOf(ids.old)).toEqual([])
      const base = client
        .query<{ seq: number }, [string]>("SELECT seq FROM journal_base WHERE session_id = ?")
        .get(ids.old)
      expect(base?.seq).toBe((yield* session.get(ids.old)).seq)
      expect(journalOf(ids.recent).length).toBe(recentJournal + 1)
      // Untouched: the fresh session and the claimed one.
      expect(journalOf(ids.fresh)).toEqual(freshJournal)
      expect(toolItems(yield* messages(ids.fresh)).some((i) => i.type === "reasoning")).toBe(true)
      expect(everything(client).session_message!.filter((m: any) => m.session_id === ids.claimed)).toEqual(
        claimedBefore,
      )

      expect(replayed(client)).toEqual(projectionSnapshot(client))
      // The compacted session goes on: replay applies its new events on top of the snapshot.
      yield* session.rename(ids.old, "renamed after compaction")
      expect(journalOf(ids.old).map((e) => e.type)).toEqual(["session.next.renamed"])
      expect(replayed(client)).toEqual(projectionSnapshot(client))

      // Reported in stats; a second run at the same time finds nothing left to do.
      expect(databaseStats(database).retention).toEqual(summary)
      const again = yield* retention.run(POLICY)
      expect(again).toMatchObject({ pruned: { items: 0 }, deleted: { sessions: 0 }, journal: { sessions: 0 } })
    }).pipe(Effect.provide(maintenance())),
  )

  it.effect("erase takes a compacted session's snapshot again, so content pruned since is gone from it too", () =>
    Effect.gen(function* () {
      const ids = yield* seeded
      const { client } = yield* Database
      yield* (yield* Retention).run({ journal: 30 * DAY })
      const snapshot = () =>
        client
          .query<{ snapshot: string }, [string]>("SELECT snapshot FROM journal_base WHERE session_id = ?")
          .get(ids.old)!.snapshot
      // The seeded tool outputs are `<turn>:0123456789abcdef...`.
      expect(snapshot()).toContain("0:0123456789abcdef")
      yield* (yield* Prune).session({ sessionID: ids.old, types: ["tool", "reasoning"], by: "user" })
      expect(snapshot()).toContain("0:0123456789abcdef")
      yield* (yield* Erase).session({ sessionID: ids.old, by: "user" })
      expect(snapshot()).not.toContain("0123456789abcdef")
      expect(replayed(client)).toEqual(projectionSnapshot(client))
    }).pipe(Effect.provide(maintenance())),
  )

  it.effect("a policy naming nothing does nothing", () =>
    Effect.gen(function* () {
      yield* seeded
      const { client } = yield* Database
      const before = everything(client)
      const summary = yield* (yield* Retention).run({})
      expect(summary).toMatchObject({ pruned: { items: 0 }, deleted: { sessions: 0 }, journal: { sessions: 0 } })
      const { retention_run: _a, ...after } = everything(client)
      const { retention_run: _b, ...prior } = before
      expect(after).toEqual(prior)
    }).pipe(Effect.provide(maintenance())),
  )
})

describe("retention on random histories", () => {
  it.live("replay equals the projection after every policy, and after erasing every session", () =>
    Effect.gen(function* () {
      const done = { pruned: 0, deleted: 0, compacted: 0 }
      const policies = fc.constantFrom<ReadonlyArray<keyof RetentionPolicy>>(
        ["prune"],
        ["journal"],
        ["prune", "journal"],
        ["delete"],
        ["prune", "delete", "journal"],
      )
      /** One random history on a fresh maintenance store, closed when the check ends. */
      const check = (ops: number[], keys: ReadonlyArray<keyof RetentionPolicy>) =>
        Effect.gen(function* () {
          yield* applyOps(ops)
          const database = yield* Database
          // Far in the future, every age has passed: each unclaimed session is pruned, deleted or compacted.
          const policy = Object.fromEntries(keys.map((key) => [key, 1_000]))
          const later = { now: Date.now() + 1_000 * DAY }
          const summary = yield* Retention.use((r) => r.run(policy, later))
          done.pruned += summary.pruned.items
          done.deleted += summary.deleted.sessions
          done.compacted += summary.journal.sessions
          expect(replayed(database.client)).toEqual(projectionSnapshot(database.client))
          const ids = database.client.query<{ id: string }, []>("SELECT id FROM session").all()
          for (const { id } of ids) yield* Erase.use((e) => e.session({ sessionID: id, by: "user" }))
          expect(replayed(database.client)).toEqual(projectionSnapshot(database.client))
        }).pipe(Effect.provide(maintenance()))
      // fast-check drives the runs: each is run with the test's own services.
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(opsArbitrary(fc), policies, (ops, keys) => run(check(ops, keys))),
          { numRuns: 60 },
        ),
      )
      // The histories must give deletion and journal compaction something to do; when the property's runs
      // happened not to, keep drawing random histories (bounded) until they have. Pruning by age needs a
      // completed assistant message holding a tool or reasoning item in an idle session, which random
      // histories seldom end with, so it is not required here: the seeded tests above prune by age.
      const idle = () => done.deleted === 0 || done.compacted === 0
      for (let extra = 0; extra < 300 && idle(); extra++) {
        yield* check(fc.sample(opsArbitrary(fc), 1)[0]!, ["prune", "delete", "journal"])
      }
      expect(done, JSON.stringify(done)).toSatisfy(() => !idle())
    }),
  )
})

describe("storage.retention in config", () => {
  it.effect.each([
    ["prune", "14 days"],
    ["delete", "1.5d"],
    ["journal", "30"],
    ["prune", "0d"],
  ])("refuses %s: %s, naming the key", ([key, value]) =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        parseConfig(JSON.stringify({ storage: { retention: { [key!]: value } } }), "/x/opencode.json"),
      )
      expect(exit).toMatchObject({ _tag: "Failure" })
      expect(JSON.stringify(exit)).toContain(`storage.retention.${key}`)
    }),
  )

  it.effect("accepts whole numbers of s, m, h, d and w", () =>
    Effect.gen(function* () {
      const data = yield* parseConfig(
        JSON.stringify({ storage: { retention: { prune: "90s", delete: "2w", journal: "12h" } } }),
        "/x",
      )
      expect(data.storage?.retention).toEqual({ prune: "90s", delete: "2w", journal: "12h" })
    }),
  )
})
