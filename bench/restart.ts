// Time from host start until session.preflight has fired for 200 suspended sessions.
import type { PromisePlugin } from "../packages/plugin/src/index.ts"
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { draft } from "../packages/core/src/bus/event.ts"
import { HostLayer } from "../packages/core/src/host.ts"
import { ascending } from "../packages/core/src/id/id.ts"
import { SessionEvent } from "../packages/core/src/domain/event.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const SESSIONS = 200

export const run = async () => {
  section(`restart: host start until preflight(resume) fired for ${SESSIONS} suspended sessions`)
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const database = join(dir, "restart.db")
  const config = { data: {}, directory: dir }
  try {
    const seed = ManagedRuntime.make(HostLayer({ database, config, autoResume: false }))
    await seed.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        for (let i = 0; i < SESSIONS; i++) {
          const info = yield* session.create({ directory: dir })
          yield* bus.commit(info.id, [
            draft(SessionEvent.PromptAdmitted, {
              messageID: ascending("msg"),
              prompt: { text: `work ${i}` },
              delivery: "queue",
              origin: "user",
            }),
            draft(SessionEvent.TurnStarted, { turnID: ascending("trn"), reason: "prompt" }),
          ])
        }
      }),
    )
    await seed.dispose()

    const fired: Array<number> = []
    let start = 0
    let done!: () => void
    const all = new Promise<void>((resolve) => (done = resolve))
    const recorder: PromisePlugin = {
      id: "bench-preflight",
      setup(ctx) {
        ctx.session.hook("preflight", (event) => {
          if (event.reason !== "resume") return
          fired.push(now() - start)
          if (fired.length === SESSIONS) done()
        })
      },
    }
    start = now()
    const runtime = ManagedRuntime.make(
      HostLayer({ database, config, plugins: [{ source: "bench", plugin: recorder }] }),
    )
    await runtime.runPromise(
      Effect.gen(function* () {
        yield* Execution
      }),
    )
    await all
    line("first preflight(resume) after start", ms(percentile(fired, 0)))
    line("p50 / p99 preflight(resume) after start", `${ms(percentile(fired, 50))} / ${ms(percentile(fired, 99))}`)
    line(`all ${SESSIONS} preflight(resume) fired after start`, ms(Math.max(...fired)))
    await runtime.runPromise(
      Effect.gen(function* () {
        const execution = yield* Execution
        const session = yield* Session
        for (const info of (yield* session.list({ limit: 200 })).data) yield* execution.wait(info.id)
      }),
    )
    await runtime.dispose()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
