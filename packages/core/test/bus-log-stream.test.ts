import { Deferred, Effect, Fiber, Random, Stream } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Bus, type BusEvent, isDurable } from "../src/bus/bus.ts"
import { draft, type Envelope } from "../src/bus/event.ts"
import { SessionEvent } from "../src/domain/event.ts"
import { Session } from "../src/session/session.ts"
import { Stats } from "../src/storage/stats.ts"
import { admitted } from "./support/seed.ts"
import { storeLayer } from "./support/store.ts"

const rename = (title: string) => draft(SessionEvent.Renamed, { title })

describe("Bus.log: the durable log as a stream", () => {
  it.effect("reads the journal after a seq, in order, without following", () =>
    Effect.gen(function* () {
      const { seqs, titles } = yield* Effect.gen(function* () {
        const bus = yield* Bus
        const info = yield* (yield* Session).create({ title: "t", directory: "/tmp" })
        for (let i = 0; i < 1200; i++) yield* bus.commit(info.id, [rename(`r${i}`)])
        const events = yield* Stream.runCollect(bus.log({ sessionID: info.id, after: 5 }))
        return {
          seqs: events.map((e) => e.seq),
          titles: events.slice(-1).map((e) => (e.data as { title: string }).title),
        }
      })
      // 1 create + 1200 renames; pages of 500 are stitched without a gap.
      expect(seqs).toEqual(Array.from({ length: 1201 - 5 }, (_, i) => i + 6))
      expect(titles).toEqual(["r1199"])
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )

  it.effect("follows live commits racing the catch-up with no gap and no duplicate", () =>
    Effect.gen(function* () {
      const seqs = yield* Effect.gen(function* () {
        const bus = yield* Bus
        const info = yield* (yield* Session).create({ title: "t", directory: "/tmp" })
        for (let i = 0; i < 700; i++) yield* bus.commit(info.id, [rename(`a${i}`)])
        const total = 1 + 700 + 300
        const reader = yield* Effect.forkChild(
          Stream.runCollect(bus.log({ sessionID: info.id, follow: true }).pipe(Stream.take(total - 3))),
        )
        // Commits with random pauses while the reader pages through the journal.
        for (let i = 0; i < 300; i++) {
          const pause = yield* Random.nextIntBetween(0, 3)
          for (let k = 0; k < pause; k++) yield* Effect.yieldNow
          yield* bus.commit(info.id, [rename(`b${i}`)])
        }
        return (yield* Fiber.join(reader)).map((e) => e.seq)
      })
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1))
      expect(seqs.length).toBe(1001 - 3)
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )

  it.effect("gives live and journaled events one encoding", () =>
    Effect.gen(function* () {
      const { live, logged } = yield* Effect.gen(function* () {
        const bus = yield* Bus
        const live: Array<BusEvent> = []
        bus.subscribe((event) => live.push(bus.encode(event)))
        const session = yield* Session
        const info = yield* session.create({ title: "t", directory: "/tmp" })
        yield* bus.commit(info.id, [rename("x")])
        const logged = yield* Stream.runCollect(bus.log({ sessionID: info.id }))
        return { live: live.filter(isDurable), logged: logged as ReadonlyArray<Envelope> }
      })
      expect(JSON.parse(JSON.stringify(live))).toEqual(JSON.parse(JSON.stringify(logged)))
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )

  it.effect("fails with a typed error when the journal is off, and a follower that falls behind overflows", () =>
    Effect.gen(function* () {
      const disabled = yield* Effect.gen(function* () {
        const info = yield* (yield* Session).create({ title: "t", directory: "/tmp" })
        return yield* Effect.flip(Stream.runCollect((yield* Bus).log({ sessionID: info.id })))
      }).pipe(Effect.provide(storeLayer({ persist: false })))
      expect(disabled._tag).toBe("Bus.JournalDisabledError")

      const overflow = yield* Effect.gen(function* () {
        const bus = yield* Bus
        const info = yield* (yield* Session).create({ title: "t", directory: "/tmp" })
        // A reader that takes the journal, then stops pulling while 10 events commit into a buffer of 2.
        const reading = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const log = bus.log({ sessionID: info.id, follow: true, bufferLimit: 2 })
        const reader = yield* Effect.forkChild(
          Stream.runCollect(
            log.pipe(
              Stream.tap((e) =>
                e.seq === 1
                  ? Deferred.succeed(reading, undefined).pipe(Effect.andThen(Deferred.await(gate)))
                  : Effect.void,
              ),
            ),
          ),
        )
        yield* Deferred.await(reading)
        for (let i = 0; i < 10; i++) yield* bus.commit(info.id, [rename(`r${i}`)])
        yield* Deferred.succeed(gate, undefined)
        return yield* Effect.flip(Fiber.join(reader))
      }).pipe(Effect.provide(storeLayer({ persist: true })))
      expect(overflow._tag).toBe("Bus.LogOverflowError")
    }),
  )

  it.effect("Stats reports a session's bytes through the core service", () =>
    Effect.gen(function* () {
      const report = yield* Effect.gen(function* () {
        const bus = yield* Bus
        const info = yield* (yield* Session).create({ title: "measured", directory: "/tmp" })
        yield* bus.commit(info.id, [admitted("twelve chars", "msg_measured")])
        return yield* (yield* Stats).report({ sessionID: info.id })
      })
      expect(report.sessions).toHaveLength(1)
      expect(report.sessions[0]!.title).toBe("measured")
      expect(report.sessions[0]!.messages).toBe(1)
      // A prompt's text counts as text: its JSON string, quotes included.
      expect(report.sessions[0]!.items).toEqual({ text: 14, reasoning: 0, tool: 0 })
      expect(report.journal.events).toBe(2)
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )
})
