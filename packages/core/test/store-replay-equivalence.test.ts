import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Database } from "../src/storage/database.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { applyOps, opsArbitrary } from "./support/random-history.ts"
import { makeStore } from "./support/store.ts"

describe("replaying the journal into an empty database", () => {
  it("gives exactly the live projection, for 200 random histories", async () => {
    await fc.assert(
      fc.asyncProperty(opsArbitrary(fc), async (ops) => {
        const live = makeStore({ path: ":memory:", persist: true })
        try {
          const database = await live.run(
            Effect.gen(function* () {
              yield* applyOps(ops)
              return yield* Database
            }),
          )
          const target = Database.open(":memory:")
          const applied = replay(database.client, target, makeSessionProjector(target.client))
          expect(applied).toBe((database.client.query("SELECT count(*) AS n FROM event").get() as { n: number }).n)
          expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(database.client))
          target.client.close()
        } finally {
          await live.dispose()
        }
      }),
      { numRuns: 200 },
    )
  })

  it("fails loudly on an event type it does not know", async () => {
    const live = makeStore({ path: ":memory:", persist: true })
    const database = await live.run(
      Effect.gen(function* () {
        yield* applyOps([0, 3])
        return yield* Database
      }),
    )
    database.client.run("UPDATE event SET type = 'session.unknown' WHERE seq = 1")
    const target = Database.open(":memory:")
    expect(() => replay(database.client, target, makeSessionProjector(target.client))).toThrow(
      /unknown event session.unknown/,
    )
    await live.dispose()
  })
})
