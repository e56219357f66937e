// Host time a `task` call adds beyond its child's model time, with the offline provider. Each call is timed
// from its `tool.called` commit to its `tool.success` commit, as a bus subscriber sees them; the child's
// model time is the provider alone answering the child's request. What remains is the host's: creating
// the child session, admitting its prompt, running its turn (commits, projection) and reading its answer
// back. Target: <= 10 ms (p50 and p99 reported).
import { Effect, ManagedRuntime, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { HostLayer } from "../packages/core/src/host.ts"
import { makeOffline } from "../packages/core/src/provider/offline.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { toModelMessages } from "../packages/core/src/turn/transcript.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const ITERATIONS = 200
const WARMUP = 10
const TASK = `/tool task ${JSON.stringify({ description: "echo", prompt: "say hello back", subagent_type: "general" })}`

const measure = async () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-task-"))
  const runtime = ManagedRuntime.make(
    HostLayer({ database: join(dir, "bench.db"), config: { data: {}, directory: dir } }),
  )
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const bus = yield* Bus
        const session = yield* Session
        const execution = yield* Execution
        const offline = makeOffline()
        const called = new Map<string, number>()
        const spans = new Map<string, number>()
        const unsubscribe = bus.subscribe((event) => {
          if (event.type === "session.next.tool.called") called.set(event.sessionID, now())
          if (event.type === "session.next.tool.success" && called.has(event.sessionID))
            spans.set(event.sessionID, now() - called.get(event.sessionID)!)
        })
        const overhead: Array<number> = []
        const childModel: Array<number> = []
        const turns: Array<number> = []
        for (let i = 0; i < ITERATIONS + WARMUP; i++) {
          const info = yield* session.create({ directory: dir })
          const start = now()
          yield* execution.prompt({ sessionID: info.id, prompt: { text: TASK } })
          yield* execution.wait(info.id)
          const turn = now() - start
          const span = spans.get(info.id)
          const [child] = (yield* session.list({ parentID: info.id })).data
          if (span === undefined || !child) throw new Error("the task call did not complete with a child session")
          const request = {
            model: { providerID: "offline", id: "echo" },
            system: [],
            messages: toModelMessages(session.sync.transcript(child.id).slice(0, 1)),
            tools: [],
          }
          const modelStart = now()
          yield* Stream.runDrain(offline.stream(request))
          const model = now() - modelStart
          // The first calls warm the JIT and the statement caches.
          if (i < WARMUP) continue
          childModel.push(model)
          overhead.push(Math.max(0, span - model))
          turns.push(turn)
        }
        unsubscribe()
        return { overhead, childModel, turns }
      }),
    )
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  section(`core: host time a task call adds beyond the child's model time, offline provider (${ITERATIONS} calls)`)
  const result = await measure()
  line(
    "task call overhead (target <= 10 ms)",
    `p50 ${ms(percentile(result.overhead, 50))}  p90 ${ms(percentile(result.overhead, 90))}  p99 ${ms(percentile(result.overhead, 99))}`,
  )
  line("child's provider time alone", `p50 ${ms(percentile(result.childModel, 50))}`)
  line("whole parent turn (two requests and the call)", `p50 ${ms(percentile(result.turns, 50))}`)
}

if (import.meta.main) await run()
