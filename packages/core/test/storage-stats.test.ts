import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { StoreLayer } from "../src/host.ts"
import { Session } from "../src/session/session.ts"
import { Stats } from "../src/storage/stats.ts"
import { admit } from "./support/seed.ts"
import { tempDb, tempDir } from "./support/tmp.ts"

layer(StoreLayer({ path: tempDb(), persist: true }))("the storage report for one session", (it) => {
  it.effect("counts that session's messages and journal only, as the whole report does", () =>
    Effect.gen(function* () {
      const session = yield* Session
      const stats = yield* Stats
      const directory = tempDir()
      const small = yield* session.create({ directory, title: "small" })
      const large = yield* session.create({ directory, title: "large" })
      yield* admit(small.id, "one")
      for (let i = 0; i < 5; i++) yield* admit(large.id, `prompt ${i} ${"x".repeat(200)}`)

      const whole = yield* stats.report()
      const one = yield* stats.report({ sessionID: small.id })
      const entry = whole.sessions.find((s) => s.sessionID === small.id)!
      expect(one.sessions).toEqual([entry])
      expect(entry.messages).toBe(1)
      // The journal figures are the session's own: less than the whole journal, which holds the other's too.
      expect(one.journal.events).toBeGreaterThan(0)
      expect(one.journal.events).toBeLessThan(whole.journal.events)
      expect(one.journal.bytes).toBe(entry.journal)
      const other = yield* stats.report({ sessionID: large.id })
      expect(one.journal.events + other.journal.events).toBe(whole.journal.events)
      expect(one.journal.bytes + other.journal.bytes).toBe(whole.journal.bytes)
    }),
  )

  it.effect("is empty for a session with no rows", () =>
    Effect.gen(function* () {
      const stats = yield* Stats
      const report = yield* stats.report({ sessionID: "ses_missing" })
      expect(report.sessions).toEqual([])
      expect(report.journal).toEqual({ events: 0, bytes: 0 })
    }),
  )
})
