import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, vi } from "vitest"
import { Config } from "../src/config/config.ts"
import { Session } from "../src/session/session.ts"
import { MaintenanceLayer } from "../src/host.ts"
import { Retention, type RetentionSummary } from "../src/maintenance/retention.ts"
import { RetentionSchedule } from "../src/maintenance/retention-schedule.ts"
import { tempDb } from "./support/tmp.ts"

/**
 * The schedule: a run when the host starts, then one every 24 hours, with ages measured on Effect's clock.
 * The clock is `it.effect`'s TestClock: the test sets it and moves it a day; nothing waits for real time.
 */

afterEach(() => vi.restoreAllMocks())

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 1)

describe("the retention schedule", () => {
  it.effect("runs at start, then daily, on the clock it is given; a config naming nothing starts none", () =>
    Effect.gen(function* () {
      const store = MaintenanceLayer({ path: tempDb(), persist: true })
      const config = (data: object) => Config.layer({ data, directory: "/tmp" })
      const context = yield* Layer.build(store)
      const session = Context.get(context, Session)
      // One session last changed 40 days ago, one 29.5 days ago (commits take their time from the clock).
      yield* TestClock.setTime(NOW - 40 * DAY)
      const old = yield* session.create({ directory: "/tmp", title: "old" })
      yield* TestClock.setTime(NOW - 29.5 * DAY)
      const younger = yield* session.create({ directory: "/tmp", title: "younger" })

      // The real retention, reporting each finished run: what the test waits on.
      const real = Context.get(context, Retention)
      const watched = (finished: Queue.Queue<RetentionSummary>) =>
        Layer.succeedContext(
          Context.add(
            context,
            Retention,
            Retention.of({
              ...real,
              run: (p, o) => real.run(p, o).pipe(Effect.tap((s) => Queue.offer(finished, s))),
            }),
          ),
        )
      const runs = yield* Queue.unbounded<RetentionSummary>()
      yield* TestClock.setTime(NOW)
      yield* Layer.build(
        RetentionSchedule.pipe(
          Layer.provide(config({ storage: { retention: { delete: "30d" } } })),
          Layer.provide(watched(runs)),
        ),
      )
      // At start: the 40-day-old session goes, the 29.5-day-old one is not old enough yet.
      expect(yield* Queue.take(runs)).toMatchObject({ time: NOW, deleted: { sessions: 1 } })
      expect(session.sync.row(old.id)).toBeUndefined()
      expect(session.sync.row(younger.id)).toBeDefined()
      // A day later (on the test's clock) the next run deletes it.
      yield* TestClock.adjust(DAY)
      expect(yield* Queue.take(runs)).toMatchObject({ time: NOW + DAY, deleted: { sessions: 1 } })
      expect(session.sync.row(younger.id)).toBeUndefined()
      expect(real.last()).toMatchObject({ time: NOW + DAY })

      // Retention is off unless config names it: a schedule built without it never runs, while the
      // first one goes on running daily.
      const none = yield* Queue.unbounded<RetentionSummary>()
      yield* Layer.build(RetentionSchedule.pipe(Layer.provide(config({})), Layer.provide(watched(none))))
      yield* TestClock.adjust(DAY)
      expect(yield* Queue.take(runs)).toMatchObject({ time: NOW + 2 * DAY, deleted: { sessions: 0 } })
      expect(yield* Queue.size(none)).toBe(0)
    }),
  )
})
