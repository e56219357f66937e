import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Erase } from "../src/maintenance/erase.ts"
import { sessionDurableEvents } from "../src/domain/event.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Database } from "../src/storage/database.ts"
import { MaintenanceLayer } from "../src/host.ts"
import { applyOps, opsArbitrary } from "./support/random-history.ts"
import { storeLayer } from "./support/store.ts"

/** The projection a replay of `source`'s journal into an empty database gives, and how many events it applied. */
const replayed = (source: Database["Service"]) => {
  const target = Database.open(":memory:")
  try {
    const applied = replay(source.client, target, makeSessionProjector(target.client))
    return { applied, snapshot: projectionSnapshot(target.client) }
  } finally {
    target.client.close()
  }
}

const journalCount = (database: Database["Service"]) =>
  (database.client.query("SELECT count(*) AS n FROM event").get() as { n: number }).n

describe("replaying the journal into an empty database", () => {
  /** Every durable event type some generated history committed. */
  const seen = new Set<string>()

  /** A live store (with erase) on a random history: `check` runs on it, and it is closed after. */
  const onHistory = <A>(
    ops: ReadonlyArray<number>,
    check: (database: Database["Service"]) => Effect.Effect<A, unknown, Erase>,
  ) =>
    Effect.gen(function* () {
      yield* applyOps(ops)
      const database = yield* Database
      for (const { type } of database.client.query("SELECT DISTINCT type FROM event").all() as Array<{ type: string }>)
        seen.add(type)
      return yield* check(database)
    }).pipe(Effect.provide(MaintenanceLayer({ path: ":memory:", persist: true })))

  /** A random history's journal replays into exactly its live projection. */
  const replaysExactly = (ops: ReadonlyArray<number>) =>
    onHistory(ops, (database) =>
      Effect.sync(() => {
        const { applied, snapshot } = replayed(database)
        expect(applied).toBe(journalCount(database))
        expect(snapshot).toEqual(projectionSnapshot(database.client))
      }),
    )

  /** fast-check drives the runs of a property: each is run with the test's own services. */
  const property = <T>(
    arbitrary: fc.Arbitrary<T>,
    check: (value: T) => Effect.Effect<unknown, unknown>,
    numRuns: number,
  ) =>
    Effect.gen(function* () {
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(arbitrary, (value) => run(Effect.asVoid(check(value)))),
          { numRuns },
        ),
      )
    })

  it.live("gives exactly the live projection, for 200 random histories", () =>
    property(opsArbitrary(fc), replaysExactly, 200),
  )

  it.live("still gives it after every session's journal was erased, for 60 random histories", () =>
    property(
      opsArbitrary(fc),
      (ops) =>
        onHistory(ops, (database) =>
          Effect.gen(function* () {
            // Erase rewrites superseded payloads into tombstones (deleted sessions' journals whole): replay of
            // the tombstoned journal gives the live projection, and a second erase finds nothing left.
            const sessions = database.client.query("SELECT DISTINCT aggregate_id AS id FROM event").all() as Array<{
              id: string
            }>
            const projection = projectionSnapshot(database.client)
            const erase = yield* Erase
            for (const { id } of sessions) yield* erase.session({ sessionID: id, by: "user" })
            const second = yield* Effect.forEach(sessions, ({ id }) => erase.session({ sessionID: id, by: "user" }))
            // Erasing changes no message, inbox or claim row (the `erased` record bumps the session's seq, and
            // an erased ask's projected row is emptied like its journal row).
            const erased = projectionSnapshot(database.client)
            expect({ ...erased, session: undefined, session_permission: undefined }).toEqual({
              ...projection,
              session: undefined,
              session_permission: undefined,
            })
            const { applied, snapshot } = replayed(database)
            expect(applied).toBe(journalCount(database))
            expect(snapshot).toEqual(erased)
            for (const summary of second) expect(summary).toMatchObject({ events: 0, fields: 0, bytes: 0 })
          }),
        ),
      60,
    ),
  )

  it.live("covers every durable event type, drawing more histories when the properties above missed one", () =>
    Effect.gen(function* () {
      const all = sessionDurableEvents.map((d) => d.type)
      // The rarer event types need more random histories than the properties' runs now and then: keep
      // drawing (bounded), with the same check, until every type has been replayed.
      for (let extra = 0; extra < 2000 && all.some((type) => !seen.has(type)); extra++) {
        yield* replaysExactly(fc.sample(opsArbitrary(fc), 1)[0]!)
      }
      expect([...seen].sort()).toEqual(all.sort())
    }),
  )

  it.effect("fails loudly on an event type it does not know", () =>
    Effect.gen(function* () {
      const database = yield* Effect.gen(function* () {
        yield* applyOps([0, 3])
        return yield* Database
      })
      database.client.run("UPDATE event SET type = 'session.unknown' WHERE seq = 1")
      const target = Database.open(":memory:")
      expect(() => replay(database.client, target, makeSessionProjector(target.client))).toThrow(
        /unknown event session.unknown/,
      )
    }).pipe(Effect.provide(storeLayer({ path: ":memory:", persist: true }))),
  )
})
