// The storage report for one session (what the web client's session view asks for) and for the whole
// database (the storage page and the session list), on a database of 10,000 sessions with the journal on.
// One session's report should cost what that session holds, not what the database holds.
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Session } from "../packages/core/src/session/session.ts"
import { Stats } from "../packages/core/src/storage/stats.ts"
import { StoreLayer } from "../packages/core/src/host.ts"
import { seedMessages } from "./seed.ts"
import { line, ms, now, section, summary } from "./stats.ts"

const SESSIONS = 10_000
const MESSAGES = 4
const SAMPLES = 300

export const run = async () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-session-stats-"))
  const database = join(dir, "stats.db")
  section(`session stats: ${SESSIONS.toLocaleString()} sessions of ${MESSAGES} messages, journal on`)
  const runtime = ManagedRuntime.make(StoreLayer({ path: database, persist: true }))
  try {
    const seedStart = now()
    const ids = await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const ids: Array<string> = []
        for (let i = 0; i < SESSIONS; i++) {
          const info = yield* session.create({ directory: dir, title: `session ${i}` })
          yield* seedMessages(info.id, MESSAGES)
          ids.push(info.id)
        }
        return ids
      }),
    )
    line("seeding (not measured below)", ms(now() - seedStart))
    const one: Array<number> = []
    const all: Array<number> = []
    await runtime.runPromise(
      Effect.gen(function* () {
        const stats = yield* Stats
        for (let i = 0; i < SAMPLES; i++) {
          const sessionID = ids[(i * 7919) % ids.length]!
          const begin = now()
          const report = yield* stats.report({ sessionID })
          one.push(now() - begin)
          if (report.sessions.length !== 1 || report.sessions[0]!.messages !== MESSAGES) {
            throw new Error(`unexpected report for ${sessionID}: ${JSON.stringify(report.sessions)}`)
          }
        }
        for (let i = 0; i < 20; i++) {
          const begin = now()
          yield* stats.report()
          all.push(now() - begin)
        }
      }),
    )
    summary("stats.report({ sessionID }) (one session)", one)
    summary("stats.report() (whole database)", all)
  } finally {
    await runtime.dispose()
  }
}

if (import.meta.main) await run()
