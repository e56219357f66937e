import { Effect, Exit } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Bus } from "../src/bus/bus.ts"
import { Session } from "../src/session/session.ts"
import { admitted, textOf } from "./support/seed.ts"
import { storeLayer } from "./support/store.ts"

describe("the session read API", () => {
  it.effect("walks a 1,000-message session with cursors, both orders, with no gap or duplicate", () =>
    Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const info = yield* session.create({ title: "long", directory: "/tmp" })
        for (let i = 0; i < 1000; i++) yield* bus.commit(info.id, [admitted(`m${i}`)])
        /** Every page from the start, following `cursor.next`; then back from the last page with `previous`. */
        const walk = (order: "asc" | "desc", limit: number) =>
          Effect.gen(function* () {
            const pages: Array<Array<string>> = []
            let page = yield* session.messages(info.id, { order, limit })
            expect(page.cursor.previous).toBeUndefined()
            pages.push(page.data.map(textOf))
            while (page.cursor.next) {
              page = yield* session.messages(info.id, { order, limit, cursor: page.cursor.next })
              pages.push(page.data.map(textOf))
            }
            const back: Array<Array<string>> = [page.data.map(textOf)]
            while (page.cursor.previous) {
              page = yield* session.messages(info.id, { order, limit, cursor: page.cursor.previous })
              back.unshift(page.data.map(textOf))
            }
            return { texts: pages.flat(), pages: pages.length, back: back.flat() }
          })
        return { asc: yield* walk("asc", 200), desc: yield* walk("desc", 37), odd: yield* walk("asc", 7) }
      })
      const expected = Array.from({ length: 1000 }, (_, i) => `m${i}`)
      expect(result.asc.texts).toEqual(expected)
      expect(result.asc.pages).toBe(5)
      expect(result.desc.texts).toEqual([...expected].reverse())
      expect(result.odd.texts).toEqual(expected)
      // Walking back with `previous` from the last page gives the same items, in the same order.
      expect(result.asc.back).toEqual(expected)
      expect(result.desc.back).toEqual([...expected].reverse())
      expect(result.odd.back).toEqual(expected)
    }).pipe(Effect.provide(storeLayer({ persist: false }))),
  )

  it.effect("lists sessions newest first with a cursor", () =>
    Effect.gen(function* () {
      const { created, listed } = yield* Effect.gen(function* () {
        const session = yield* Session
        const created = yield* Effect.forEach(Array.from({ length: 7 }), (_, i) =>
          session.create({ title: `s${i}`, directory: "/tmp" }),
        )
        const listed: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* session.list({ limit: 3, ...(cursor ? { cursor } : {}) })
          listed.push(...page.data.map((s) => s.id))
          cursor = page.cursor.next
        } while (cursor)
        return { created, listed }
      })
      expect(listed).toEqual(created.map((s) => s.id).reverse())
    }).pipe(Effect.provide(storeLayer({ persist: false }))),
  )

  it.effect(
    "refuses a cursor of another listing, another order, or one that does not decode, as bad input on `cursor`",
    () =>
      Effect.gen(function* () {
        const failures = yield* Effect.gen(function* () {
          const session = yield* Session
          const bus = yield* Bus
          const a = yield* session.create({ title: "a", directory: "/tmp" })
          const b = yield* session.create({ title: "b", directory: "/tmp" })
          for (const info of [a, b]) for (let i = 0; i < 3; i++) yield* bus.commit(info.id, [admitted(`m${i}`)])
          const next = (yield* session.messages(a.id, { limit: 1 })).cursor.next!
          const sessionsNext = (yield* session.list({ limit: 1 })).cursor.next!
          return {
            otherSession: yield* Effect.flip(session.messages(b.id, { limit: 1, cursor: next })),
            otherOrder: yield* Effect.flip(session.messages(a.id, { limit: 1, order: "desc", cursor: next })),
            malformed: yield* Effect.flip(session.messages(a.id, { cursor: "not a cursor!" })),
            garbage: yield* Effect.flip(session.messages(a.id, { cursor: Buffer.from("[1,2]").toString("base64url") })),
            sessionsCursorOnMessages: yield* Effect.flip(session.messages(a.id, { cursor: sessionsNext })),
            otherFilter: yield* Effect.flip(session.list({ search: "a", cursor: sessionsNext })),
            // The cursor still works where it belongs.
            same: (yield* session.messages(a.id, { limit: 1, cursor: next })).data.map(textOf),
          }
        })
        const { same, ...refused } = failures
        for (const failure of Object.values(refused))
          expect(failure).toMatchObject({ _tag: "Session.InvalidInputError", field: "cursor" })
        expect(same).toEqual(["m1"])
      }).pipe(Effect.provide(storeLayer({ persist: false }))),
  )

  it.effect("answers unknown ids with the typed errors", () =>
    Effect.gen(function* () {
      const exits = yield* Effect.gen(function* () {
        const session = yield* Session
        const info = yield* session.create({ title: "x", directory: "/tmp" })
        return {
          get: yield* Effect.exit(session.get("ses_missing")),
          messages: yield* Effect.exit(session.messages("ses_missing")),
          message: yield* Effect.exit(session.message(info.id, "msg_missing")),
          messageOfMissing: yield* Effect.exit(session.message("ses_missing", "msg_missing")),
          rename: yield* Effect.exit(session.rename("ses_missing", "t")),
          remove: yield* Effect.exit(session.remove("ses_missing")),
        }
      })
      const failure = (exit: Exit.Exit<unknown, unknown>) =>
        Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: unknown }).error : undefined
      expect(failure(exits.get)).toMatchObject({ _tag: "Session.NotFoundError", sessionID: "ses_missing" })
      expect(failure(exits.messages)).toMatchObject({ _tag: "Session.NotFoundError", sessionID: "ses_missing" })
      expect(failure(exits.message)).toMatchObject({ _tag: "Session.MessageNotFoundError", messageID: "msg_missing" })
      expect(failure(exits.messageOfMissing)).toMatchObject({ _tag: "Session.NotFoundError" })
      expect(failure(exits.rename)).toMatchObject({ _tag: "Session.NotFoundError" })
      expect(failure(exits.remove)).toMatchObject({ _tag: "Session.NotFoundError" })
    }).pipe(Effect.provide(storeLayer({ persist: false }))),
  )

  it.effect("deleting a session removes its rows, and nothing can be committed to it afterwards", () =>
    Effect.gen(function* () {
      const seqs = yield* Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const info = yield* session.create({ title: "x", directory: "/tmp" })
        yield* bus.commit(info.id, [admitted("hello")])
        yield* session.remove(info.id)
        const after = yield* Effect.exit(session.get(info.id))
        const { Database } = yield* Effect.promise(() => import("../src/storage/database.ts"))
        const { client } = yield* Database
        return {
          after: Exit.isFailure(after),
          messages: client.query("SELECT count(*) AS n FROM session_message WHERE session_id = ?").get(info.id),
          journal: client.query("SELECT seq FROM event WHERE aggregate_id = ? ORDER BY seq").all(info.id),
          late: Exit.isFailure(yield* Effect.exit(bus.commit(info.id, [admitted("late")]))),
        }
      })
      expect(seqs.after).toBe(true)
      expect(seqs.messages).toEqual({ n: 0 })
      expect(seqs.journal).toEqual([{ seq: 1 }, { seq: 2 }, { seq: 3 }])
      expect(seqs.late).toBe(true)
    }).pipe(Effect.provide(storeLayer({ persist: true }))),
  )
})
