import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { Bus, isDurable, type BusEvent } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { Projectors } from "../src/bus/projector.ts"
import { SessionEvent } from "../src/domain/event.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { projectionSnapshot } from "../src/bus/replay.ts"
import { Database } from "../src/storage/database.ts"
import { admitted } from "./support/seed.ts"
import { tempDb } from "./support/tmp.ts"

/** Projectors that fail on any prompt whose text is "boom", after the real projector ran for earlier drafts. */
const FailingProjectors = Layer.effect(
  Projectors,
  Effect.gen(function* () {
    const database = yield* Database
    const projector = makeSessionProjector(database.client)
    return Projectors.of({
      ...projector,
      project: (event) => {
        projector.project(event)
        const data = event.data as { prompt?: { text?: string } }
        if (data.prompt?.text === "boom") throw new Error("projector failed")
      },
    })
  }),
)

/** A durable bus on a fresh SQLite file whose projectors fail on "boom". */
const failingStore = () =>
  Bus.layer({ persist: true }).pipe(Layer.provide(FailingProjectors), Layer.provideMerge(Database.layer(tempDb())))

describe("a durable commit is one transaction", () => {
  it.effect("a failing projector leaves seq, rows and journal unchanged and publishes nothing", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const { client } = yield* Database
      const seen: Array<BusEvent> = []
      yield* bus.commit("ses_atomic", [draft(SessionEvent.Created, { title: "t", location: { directory: "/tmp" } })])
      yield* bus.commit("ses_atomic", [admitted("fine", "msg_a1")])
      bus.subscribe((event) => seen.push(event))
      const before = projectionSnapshot(client)
      const journalBefore = client.query("SELECT * FROM event ORDER BY rowid").all()

      // The first draft projects fine, the second throws: both must vanish.
      const exit = yield* Effect.exit(bus.commit("ses_atomic", [admitted("ok", "msg_a2"), admitted("boom", "msg_a3")]))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(projectionSnapshot(client)).toEqual(before)
      expect(client.query("SELECT * FROM event ORDER BY rowid").all()).toEqual(journalBefore)
      expect(seen).toEqual([])

      // The next commit continues from the old seq: the failed one consumed nothing.
      const next = yield* bus.commit("ses_atomic", [draft(SessionEvent.Renamed, { title: "after" })])
      expect(next[0]!.seq).toBe(3)
      expect(seen.filter(isDurable).map((e) => e.seq)).toEqual([3])
    }).pipe(Effect.provide(failingStore())),
  )

  it.effect("an event whose data fails schema decoding is rejected and nothing is written", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const { client } = yield* Database
      yield* bus.commit("ses_bad", [draft(SessionEvent.Created, { title: "t", location: { directory: "/tmp" } })])
      const before = projectionSnapshot(client)
      const exit = yield* Effect.exit(
        bus.commit("ses_bad", [
          draft(SessionEvent.Renamed, { title: "valid" }),
          draft(SessionEvent.Renamed, { title: 42 } as never),
        ]),
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        // A draft the host built wrong is a defect, not an expected failure callers must handle.
        expect(Cause.hasDies(exit.cause)).toBe(true)
        expect(Cause.hasFails(exit.cause)).toBe(false)
        expect(JSON.stringify(exit.cause)).toContain("Bus.InvalidEventError")
      }
      expect(projectionSnapshot(client)).toEqual(before)
      expect(client.query("SELECT count(*) AS n FROM event").get()).toEqual({ n: 1 })
    }).pipe(Effect.provide(failingStore())),
  )
})
