import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { ascending } from "../src/id/id.ts"
import { SessionEvent } from "../src/session/event.ts"
import { Session } from "../src/session/session.ts"
import { makeStore } from "./support/store.ts"

const admit = (sessionID: string, text: string) => {
  const id = ascending("msg")
  return draft(SessionEvent.MessageAdmitted, {
    message: {
      id,
      sessionID,
      type: "user",
      origin: "user",
      parts: [{ id: ascending("prt"), type: "text", text }],
      time: { created: 1 },
    },
  })
}

describe("the session read API", () => {
  it("walks a 1,000-message session with cursors, both orders, with no gap or duplicate", async () => {
    const store = makeStore({ persist: false })
    const result = await store.run(
      Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const info = yield* session.create({ title: "long" })
        for (let i = 0; i < 1000; i++) yield* bus.commit(info.id, [admit(info.id, `m${i}`)])
        const walk = (order: "asc" | "desc", limit: number) =>
          Effect.gen(function* () {
            const texts: Array<string> = []
            let cursor: string | undefined
            let pages = 0
            do {
              const page = yield* session.messages(info.id, { order, limit, ...(cursor ? { cursor } : {}) })
              texts.push(...page.items.map((m) => (m.parts[0] as { text: string }).text))
              cursor = page.cursor
              pages++
            } while (cursor)
            return { texts, pages }
          })
        return { asc: yield* walk("asc", 200), desc: yield* walk("desc", 37), odd: yield* walk("asc", 7) }
      }),
    )
    const expected = Array.from({ length: 1000 }, (_, i) => `m${i}`)
    expect(result.asc.texts).toEqual(expected)
    expect(result.asc.pages).toBe(5)
    expect(result.desc.texts).toEqual([...expected].reverse())
    expect(result.odd.texts).toEqual(expected)
    await store.dispose()
  })

  it("lists sessions newest first with a cursor", async () => {
    const store = makeStore({ persist: false })
    const { created, listed } = await store.run(
      Effect.gen(function* () {
        const session = yield* Session
        const created = yield* Effect.forEach(Array.from({ length: 7 }), (_, i) => session.create({ title: `s${i}` }))
        const listed: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* session.list({ limit: 3, ...(cursor ? { cursor } : {}) })
          listed.push(...page.items.map((s) => s.id))
          cursor = page.cursor
        } while (cursor)
        return { created, listed }
      }),
    )
    expect(listed).toEqual(created.map((s) => s.id).reverse())
    await store.dispose()
  })

  it("answers unknown ids with the typed errors", async () => {
    const store = makeStore({ persist: false })
    const exits = await store.run(
      Effect.gen(function* () {
        const session = yield* Session
        const info = yield* session.create({ title: "x" })
        return {
          get: yield* Effect.exit(session.get("ses_missing")),
          messages: yield* Effect.exit(session.messages("ses_missing")),
          message: yield* Effect.exit(session.message(info.id, "msg_missing")),
          messageOfMissing: yield* Effect.exit(session.message("ses_missing", "msg_missing")),
          rename: yield* Effect.exit(session.rename("ses_missing", "t")),
          remove: yield* Effect.exit(session.remove("ses_missing")),
        }
      }),
    )
    const failure = (exit: Exit.Exit<unknown, unknown>) =>
      Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: unknown }).error : undefined
    expect(failure(exits.get)).toMatchObject({ _tag: "Session.NotFoundError", sessionID: "ses_missing" })
    expect(failure(exits.messages)).toMatchObject({ _tag: "Session.NotFoundError", sessionID: "ses_missing" })
    expect(failure(exits.message)).toMatchObject({ _tag: "Session.MessageNotFoundError", messageID: "msg_missing" })
    expect(failure(exits.messageOfMissing)).toMatchObject({ _tag: "Session.NotFoundError" })
    expect(failure(exits.rename)).toMatchObject({ _tag: "Session.NotFoundError" })
    expect(failure(exits.remove)).toMatchObject({ _tag: "Session.NotFoundError" })
    await store.dispose()
  })

  it("deleting a session removes its rows, and nothing can be committed to it afterwards", async () => {
    const store = makeStore({ persist: true })
    const seqs = await store.run(
      Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const info = yield* session.create({ title: "x" })
        yield* bus.commit(info.id, [admit(info.id, "hello")])
        yield* session.remove(info.id)
        const after = yield* Effect.exit(session.get(info.id))
        const { Database } = yield* Effect.promise(() => import("../src/storage/database.ts"))
        const { client } = yield* Database
        return {
          after: Exit.isFailure(after),
          messages: client.query("SELECT count(*) AS n FROM session_message WHERE session_id = ?").get(info.id),
          journal: client.query("SELECT seq FROM event WHERE aggregate_id = ? ORDER BY seq").all(info.id),
          late: Exit.isFailure(yield* Effect.exit(bus.commit(info.id, [admit(info.id, "late")]))),
        }
      }),
    )
    expect(seqs.after).toBe(true)
    expect(seqs.messages).toEqual({ n: 0 })
    expect(seqs.journal).toEqual([{ seq: 1 }, { seq: 2 }, { seq: 3 }])
    expect(seqs.late).toBe(true)
    await store.dispose()
  })
})
