// A host in its own process, for restart tests: creates sessions, prompts each once (and, with
// `compact`, starts a compaction after that turn), prints
// `{"sessions":[...]}` on stdout, then keeps running until it is killed.
import { Effect } from "effect"
import { HostLayer } from "../../src/host.ts"
import { Execution } from "../../src/turn/execution.ts"
import { Session } from "../../src/session/session.ts"
import type { HostChildSpec } from "./host-process.ts"

const spec = JSON.parse(process.argv[2]!) as HostChildSpec

const program = Effect.gen(function* () {
  const session = yield* Session
  const execution = yield* Execution
  const sessions: Array<string> = []
  for (const text of spec.prompts) {
    const info = yield* session.create({ directory: spec.directory })
    yield* execution.prompt({ sessionID: info.id, prompt: { text } })
    if (spec.compact) {
      yield* execution.wait(info.id)
      yield* execution.compact(info.id)
    }
    sessions.push(info.id)
  }
  process.stdout.write(`${JSON.stringify({ sessions })}\n`)
  return yield* Effect.never
})

await Effect.runPromise(
  program.pipe(
    Effect.provide(
      HostLayer({
        database: spec.database,
        config: { data: spec.config, directory: spec.directory },
        autoResume: false,
      }),
    ),
  ),
)
