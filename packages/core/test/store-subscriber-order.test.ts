import { describe, expect, it } from "@effect/vitest"
import { Effect, Random } from "effect"
import { Bus, isDurable } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { SessionEvent } from "../src/domain/event.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { storeLayer } from "./support/store.ts"

describe("subscribers", () => {
  it.effect("see each session's events in seq order under concurrent publishers on several sessions", () =>
    Effect.gen(function* () {
      const seen = new Map<string, Array<number>>()
      const sessions = yield* Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const created = yield* Effect.forEach(Array.from({ length: 8 }), (_, i) =>
          session.create({ title: `s${i}`, directory: "/tmp" }),
        )
        bus.subscribe((event) => {
          if (!isDurable(event)) return
          const list = seen.get(event.sessionID) ?? []
          list.push(event.seq)
          seen.set(event.sessionID, list)
        })
        // 4 publishers per session, each committing 50 renames with random yields in between.
        const publishers = created.flatMap((info) =>
          Array.from({ length: 4 }, (_, p) =>
            Effect.forEach(Array.from({ length: 50 }), (_, i) =>
              Effect.gen(function* () {
                const pause = yield* Random.nextIntBetween(0, 3)
                for (let k = 0; k < pause; k++) yield* Effect.yieldNow
                yield* bus.commit(info.id, [draft(SessionEvent.Renamed, { title: `${p}-${i}` })])
              }),
            ),
          ),
        )
        yield* Effect.all(publishers, { concurrency: "unbounded" })
        return created
      })
      for (const info of sessions) {
        const seqs = seen.get(info.id)!
        expect(seqs).toHaveLength(200)
        // seq 1 was the creation, before the subscription.
        expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => i + 2))
      }
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )

  it.effect("keep receiving events when another subscriber throws", () =>
    Effect.gen(function* () {
      const received: Array<string> = []
      yield* Effect.gen(function* () {
        const bus = yield* Bus
        const session = yield* Session
        bus.subscribe(() => {
          throw new Error("broken subscriber")
        })
        bus.subscribe((event) => received.push(event.type))
        yield* session.create({ title: "x", directory: "/tmp" })
      })
      expect(received).toEqual(["session.next.created"])
    }).pipe(Effect.provide(storeLayer({ persist: false }))),
  )

  it.effect("do not see anything after unsubscribing, and ephemeral events never reach the database", () =>
    Effect.gen(function* () {
      const received: Array<string> = []
      const rows = yield* Effect.gen(function* () {
        const bus = yield* Bus
        const session = yield* Session
        const info = yield* session.create({ title: "x", directory: "/tmp" })
        const off = bus.subscribe((event) => received.push(event.type))
        bus.publish(SessionEvent.TextDelta, info.id, {
          assistantMessageID: "msg_1",
          textID: "prt_1",
          delta: "he",
        })
        off()
        yield* session.rename(info.id, "y")
        return info
      })
      expect(received).toEqual(["session.next.text.delta"])
      const db = yield* Database
      expect(db.client.query("SELECT type FROM event WHERE aggregate_id = ? ORDER BY seq").all(rows.id)).toEqual([
        { type: "session.next.created" },
        { type: "session.next.renamed" },
      ])
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )
})
