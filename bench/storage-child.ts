// One storage operation in a fresh process, so its peak memory (maxRSS) is its own.
// argv: seed|prune|erase DB [persist]
import { Effect, ManagedRuntime } from "effect"
import { readFileSync } from "node:fs"
import { dirname } from "node:path"
import { HostLayer } from "../packages/core/src/host.ts"
import { Erase } from "../packages/core/src/maintenance/erase.ts"
import { Prune } from "../packages/core/src/maintenance/prune.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { seedBulkySession } from "../packages/core/test/support/bulky-session.ts"

const [mode, database, persist] = process.argv.slice(2) as [string, string, string]
const runtime = ManagedRuntime.make(
  HostLayer({
    database,
    config: { data: { events: { persist: persist === "persist" } }, directory: dirname(database) },
    autoResume: false,
  }),
)
const baseline = process.memoryUsage().rss
const start = performance.now()
const result = await runtime.runPromise(
  Effect.gen(function* () {
    if (mode === "seed")
      return {
        sessionID: yield* seedBulkySession({
          turns: Number(process.env.BENCH_TURNS ?? 50),
          toolBytes: 1_000_000,
          directory: dirname(database),
        }),
      }
    const sessionID = (yield* (yield* Session).list()).data[0]!.id
    if (mode === "prune") return yield* (yield* Prune).session({ sessionID, types: ["tool", "reasoning"], by: "user" })
    return yield* (yield* Erase).session({ sessionID, by: "user" })
  }),
)
const elapsed = performance.now() - start
await runtime.dispose()
// VmHWM is this process image's own peak (maxRSS would carry over the spawning parent's high-water mark).
const peak = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) * 1024
process.stdout.write(JSON.stringify({ result, elapsed, baselineRss: baseline, maxRss: peak }))
