// Time to drain a session's inbox: N prompts queued behind one held turn, each answered by its own turn
// (offline provider), for N = 100 and N = 1,000 with `session.queueLimit` raised to fit. The cost per item
// should stay about flat: every turn boundary reads only the item it delivers, and every model request
// reads only the messages written since the previous one.
import type { PromisePlugin } from "../packages/plugin/src/index.ts"
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { HostLayer } from "../packages/core/src/host.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { line, ms, now, section } from "./stats.ts"

const measure = async (count: number) => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let held!: () => void
  const holding = new Promise<void>((resolve) => (held = resolve))
  // Holds the first turn in its preflight, so every prompt after it waits in the inbox.
  const holder: PromisePlugin = {
    id: "bench-holder",
    setup(ctx) {
      let first = true
      ctx.session.hook("preflight", async () => {
        if (!first) return
        first = false
        held()
        await released
      })
    },
  }
  const runtime = ManagedRuntime.make(
    HostLayer({
      database: join(dir, "drain.db"),
      config: { data: { session: { queueLimit: count } }, directory: dir },
      plugins: [{ source: "inline:bench-holder", plugin: holder }],
    }),
  )
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: dir })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hold" } })
        yield* Effect.promise(() => holding)
        const queueStart = now()
        for (let i = 0; i < count; i++) yield* execution.prompt({ sessionID: info.id, prompt: { text: `queued ${i}` } })
        const queued = now() - queueStart
        const drainStart = now()
        release()
        yield* execution.wait(info.id)
        return { queued, drained: now() - drainStart }
      }),
    )
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  section("core: draining a queue of prompts behind one turn (offline provider, one turn per prompt)")
  const small = await measure(100)
  const large = await measure(1000)
  for (const [label, count, result] of [
    ["100 queued", 100, small],
    ["1,000 queued", 1000, large],
  ] as const) {
    line(`${label}: admit`, `${ms(result.queued)}  (${ms(result.queued / count)} per item)`)
    line(`${label}: drain`, `${ms(result.drained)}  (${ms(result.drained / count)} per item)`)
  }
  line(
    "drain per item, 1,000 / 100 (target ~1x: linear)",
    `${(large.drained / 1000 / (small.drained / 100)).toFixed(2)}x`,
  )
}

if (import.meta.main) await run()
