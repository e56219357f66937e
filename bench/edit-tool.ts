// Host time an edit tool call adds on a 1 MB file (target: p50 and p99 <= 20 ms), through a whole turn
// with the offline provider: plan (read, find, diff), permission decision, write, commit of the part.
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Bus } from "../packages/core/src/bus/bus.ts"
import { HostLayer } from "../packages/core/src/host.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const CALLS = 200
const LINE_COUNT = 20_000

/** ~1 MB of text: 20,000 lines of 50 characters, with one distinctive line in the middle. */
const bigFile = () => {
  const lines: Array<string> = []
  for (let i = 0; i < LINE_COUNT; i++) lines.push(`line ${String(i).padStart(6, "0")} ${"x".repeat(37)}`)
  lines[LINE_COUNT / 2] = "const marker = 'A' // toggled by the benchmark".padEnd(49, " ")
  return `${lines.join("\n")}\n`
}

const measure = async (file: "big.txt" | "small.txt") => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-edit-"))
  writeFileSync(join(dir, "big.txt"), bigFile())
  writeFileSync(join(dir, "small.txt"), "const marker = 'A' // toggled by the benchmark\n")
  const runtime = ManagedRuntime.make(
    HostLayer({ database: join(dir, "bench.db"), config: { data: { permission: { edit: "allow" } }, directory: dir } }),
  )
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const bus = yield* Bus
        const info = yield* session.create({ directory: dir })
        // Tool-call host time: from the committed `session.next.tool.called` (the call runs, after its
        // permission) to the committed `session.next.tool.success` that settles it.
        const started = new Map<string, number>()
        const calls: Array<number> = []
        const failures: Array<unknown> = []
        bus.subscribe((event) => {
          if (!event.type.startsWith("session.next.tool.")) return
          const data = event.data as { assistantMessageID: string; callID: string }
          const key = `${data.assistantMessageID}/${data.callID}`
          if (event.type === "session.next.tool.called") started.set(key, now())
          else if (event.type === "session.next.tool.success" && started.has(key)) calls.push(now() - started.get(key)!)
          else if (event.type === "session.next.tool.failed") failures.push(event.data)
        })
        const turns: Array<number> = []
        const cpu: Array<number> = []
        for (let i = 0; i < CALLS; i++) {
          const [from, to] = i % 2 === 0 ? ["'A'", "'B'"] : ["'B'", "'A'"]
          const start = now()
          const cpuStart = process.cpuUsage()
          yield* execution.prompt({
            sessionID: info.id,
            prompt: {
              text: `/tool edit ${JSON.stringify({ path: file, oldString: `marker = ${from}`, newString: `marker = ${to}` })}`,
            },
          })
          yield* execution.wait(info.id)
          if (failures.length > 0) throw new Error(`edit failed: ${JSON.stringify(failures[0])}`)
          turns.push(now() - start)
          const used = process.cpuUsage(cpuStart)
          cpu.push((used.user + used.system) / 1000)
        }
        if (calls.length !== CALLS) throw new Error(`${calls.length} of ${CALLS} edit calls ran`)
        return { calls, turns, cpu }
      }),
    )
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async () => {
  section(`tools: an edit call on a 1 MB file (${CALLS} calls, permission allow, offline provider)`)
  const small = await measure("small.txt")
  const big = await measure("big.txt")
  line(
    "edit call host time, 1 MB file (target p50/p99 <= 20 ms)",
    `p50 ${ms(percentile(big.calls, 50))}  p99 ${ms(percentile(big.calls, 99))}`,
  )
  line(
    "edit call host time, 1-line file",
    `p50 ${ms(percentile(small.calls, 50))}  p99 ${ms(percentile(small.calls, 99))}`,
  )
  line(
    "whole turn, 1 MB file (a prompt whose one edit call changes it)",
    `p50 ${ms(percentile(big.turns, 50))}  p99 ${ms(percentile(big.turns, 99))}`,
  )
  line("host CPU per turn, 1 MB file", `p50 ${ms(percentile(big.cpu, 50))}  p99 ${ms(percentile(big.cpu, 99))}`)
  line(
    "whole turn, 1 MB file minus 1-line file",
    `p50 ${ms(percentile(big.turns, 50) - percentile(small.turns, 50))}  p99 ${ms(percentile(big.turns, 99) - percentile(small.turns, 99))}`,
  )
  // CPU time is what the host spends whatever else runs on the machine (wall time above is inflated by load).
  line(
    "host CPU per turn, 1 MB file minus 1-line file",
    `p50 ${ms(percentile(big.cpu, 50) - percentile(small.cpu, 50))}  p99 ${ms(percentile(big.cpu, 99) - percentile(small.cpu, 99))}`,
  )
}

if (import.meta.main) await run()
