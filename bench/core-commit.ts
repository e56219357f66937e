// Durable commit throughput (journal off/on; one session; 100 sessions interleaved) and replay speed.
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { draft } from "../packages/core/src/bus/event.ts"
import { replay } from "../packages/core/src/bus/replay.ts"
import { ascending } from "../packages/core/src/id/id.ts"
import { SessionEvent } from "../packages/core/src/domain/event.ts"
import { makeSessionProjector } from "../packages/core/src/session/projector.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { Database } from "../packages/core/src/storage/database.ts"
import { StoreLayer } from "../packages/core/src/host.ts"
import { line, now, rate, section } from "./stats.ts"

/** One user message: a `session.next.prompt.admitted` event (the message id and its text are the whole payload). */
const message = (i: number) =>
  draft(SessionEvent.PromptAdmitted, {
    messageID: ascending("msg"),
    prompt: { text: `message number ${i} with a little text in it` },
    delivery: "queue",
    origin: "user",
  })

const throughput = async (persist: boolean, sessions: number, total: number) => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const runtime = ManagedRuntime.make(StoreLayer({ path: join(dir, "bench.db"), persist }))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const ids = yield* Effect.forEach(Array.from({ length: sessions }), () =>
          session.create({ title: "bench", directory: dir }).pipe(Effect.map((s) => s.id)),
        )
        const start = now()
        for (let i = 0; i < total; i++) {
          const id = ids[i % sessions]!
          yield* bus.commit(id, [message(i)])
        }
        const elapsed = now() - start
        return { perSecond: rate(total, elapsed), database: yield* Database }
      }),
    )
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  section("core: durable commits (one event per IMMEDIATE transaction, WAL, synchronous=NORMAL)")
  const results: Record<string, number> = {}
  for (const persist of [false, true]) {
    for (const sessions of [1, 100]) {
      const { perSecond } = await throughput(persist, sessions, 20_000)
      results[`${persist}-${sessions}`] = perSecond
      line(
        `journal ${persist ? "on " : "off"}, ${sessions === 1 ? "one session" : "100 sessions interleaved"}`,
        `${perSecond.toLocaleString("en")} commits/s`,
      )
    }
  }
  line("journal-on / journal-off cost ratio (one session)", `${(results["false-1"]! / results["true-1"]!).toFixed(2)}x`)

  section("core: replay from the journal into an empty database")
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const runtime = ManagedRuntime.make(StoreLayer({ path: join(dir, "source.db"), persist: true }))
  const source = await runtime.runPromise(
    Effect.gen(function* () {
      const session = yield* Session
      const bus = yield* Bus
      const ids = yield* Effect.forEach(Array.from({ length: 100 }), () =>
        session.create({ title: "bench", directory: dir }).pipe(Effect.map((s) => s.id)),
      )
      for (let i = 0; i < 100_000; i++) yield* bus.commit(ids[i % 100]!, [message(i)])
      return yield* Database
    }),
  )
  const target = Database.open(join(dir, "target.db"))
  const start = now()
  const applied = replay(source.client, target, makeSessionProjector(target.client))
  const elapsed = now() - start
  line(`replay ${applied.toLocaleString("en")} events`, `${rate(applied, elapsed).toLocaleString("en")} events/s`)
  target.client.close()
  await runtime.dispose()
  rmSync(dir, { recursive: true, force: true })
}

if (import.meta.main) await run()
