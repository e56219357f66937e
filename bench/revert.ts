// Revert of 100 changed files (target: stage <= 200 ms): one patch call (offline provider, permission allow)
// changes 100 files of 4 KB; then the revert is staged at the message before it (every file restored from
// its before-image, each checked for changes made outside the session first) and cleared again (every
// file put back), alternately.
import { Effect, ManagedRuntime } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { HostLayer } from "../packages/core/src/host.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Revert } from "../packages/core/src/maintenance/revert.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const FILES = 100
const ROUNDS = 20

const name = (i: number) => `f${String(i).padStart(3, "0")}.txt`
const body = (i: number, first: string) => `${first}\n${`file ${i} ${"y".repeat(70)}\n`.repeat(50)}`

export const run = async () => {
  section(`revert: ${FILES} files changed by one patch call, staged and cleared ${ROUNDS} times each`)
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-revert-"))
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, name(i)), body(i, "before"))
  const patch = Array.from({ length: FILES }, (_, i) =>
    [`--- a/${name(i)}`, `+++ b/${name(i)}`, "@@ -1,1 +1,1 @@", "-before", "+after", ""].join("\n"),
  ).join("")
  const runtime = ManagedRuntime.make(
    HostLayer({ database: join(dir, "bench.db"), config: { data: { permission: { edit: "allow" } }, directory: dir } }),
  )
  try {
    const { stage, clear } = await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const revert = yield* Revert
        const info = yield* session.create({ directory: dir })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hello" } })
        yield* execution.wait(info.id)
        const boundary = (yield* session.messages(info.id)).data.at(-1)!.id
        yield* execution.prompt({ sessionID: info.id, prompt: { text: `/tool patch ${JSON.stringify({ patch })}` } })
        yield* execution.wait(info.id)
        if (!readFileSync(join(dir, name(FILES - 1)), "utf8").startsWith("after\n"))
          throw new Error("the patch call did not change the files")
        const stage: Array<number> = []
        const clear: Array<number> = []
        for (let round = 0; round < ROUNDS; round++) {
          let start = now()
          const state = yield* revert.stage({ sessionID: info.id, messageID: boundary })
          stage.push(now() - start)
          if (state.restored?.length !== FILES) throw new Error(`${state.restored?.length} of ${FILES} restored`)
          start = now()
          yield* revert.clear({ sessionID: info.id })
          clear.push(now() - start)
        }
        return { stage, clear }
      }),
    )
    line(
      `revert.stage, ${FILES} files (target <= 200 ms)`,
      `p50 ${ms(percentile(stage, 50))}  p99 ${ms(percentile(stage, 99))}`,
    )
    line(`revert.clear, ${FILES} files`, `p50 ${ms(percentile(clear, 50))}  p99 ${ms(percentile(clear, 99))}`)
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
