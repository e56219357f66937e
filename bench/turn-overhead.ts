// Host overhead per turn with the offline provider, for sessions with 10 and 1,000 prior messages.
import { Effect, ManagedRuntime, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { HostLayer } from "../packages/core/src/host.ts"
import { makeOffline } from "../packages/core/src/provider/offline.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { toModelMessages } from "../packages/core/src/turn/transcript.ts"
import { seedMessages } from "./seed.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const TURNS = 200

const measure = async (prior: number) => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const runtime = ManagedRuntime.make(
    HostLayer({ database: join(dir, "bench.db"), config: { data: {}, directory: dir } }),
  )
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: dir })
        yield* seedMessages(info.id, prior)
        const offline = makeOffline()
        const totals: Array<number> = []
        const model: Array<number> = []
        for (let t = 0; t < TURNS; t++) {
          const start = now()
          yield* execution.prompt({ sessionID: info.id, prompt: { text: `turn ${t}` } })
          yield* execution.wait(info.id)
          totals.push(now() - start)
          // The provider's own share: the offline provider answering the same transcript, alone.
          const request = {
            model: { providerID: "offline", id: "echo" },
            system: [],
            messages: toModelMessages(session.sync.transcript(info.id)),
            tools: [],
          }
          const modelStart = now()
          yield* Stream.runDrain(offline.stream(request))
          model.push(now() - modelStart)
        }
        const overhead = totals.map((total, i) => Math.max(0, total - model[i]!))
        return { totals, model, overhead }
      }),
    )
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  section(`core: host overhead per turn, offline provider (${TURNS} turns each; overhead = turn - provider time)`)
  const small = await measure(10)
  const large = await measure(1000)
  for (const [label, result] of [
    ["10 prior messages", small],
    ["1,000 prior messages", large],
  ] as const) {
    line(`${label}: overhead`, `p50 ${ms(percentile(result.overhead, 50))}  p99 ${ms(percentile(result.overhead, 99))}`)
    line(`${label}: provider alone`, `p50 ${ms(percentile(result.model, 50))}`)
  }
  line(
    "overhead ratio 1,000 / 10 (p50; target <= 3x)",
    `${(percentile(large.overhead, 50) / percentile(small.overhead, 50)).toFixed(2)}x`,
  )
}

if (import.meta.main) await run()
