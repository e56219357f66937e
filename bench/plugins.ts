// Plugin cost: a turn that makes one tool call, with three plugins that each register a tool and
// `tool.execute.before` / `after` hooks against no plugins (target: within 10 %), and the per-call cost of one
// `tool.execute.before` callback that does nothing (target: <= 0.1 ms).
import type { PromisePlugin } from "../packages/plugin/src/index.ts"
import { Effect, ManagedRuntime, Schema } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { HostLayer } from "../packages/core/src/host.ts"
import { Hooks } from "../packages/core/src/hooks/hooks.ts"
import { makeToolHooks } from "../packages/core/src/hooks/tool-hooks.ts"
import { Execution } from "../packages/core/src/turn/execution.ts"
import { Session } from "../packages/core/src/session/session.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const TURNS = 150
const WARMUP = 20
const CALLS = 20_000

/** A plugin with a tool of its own and no-op tool hooks, as a tool-adding plugin typically has. */
const toolPlugin = (n: number): PromisePlugin => ({
  id: `bench-${n}`,
  setup(ctx) {
    ctx.tool.register({
      id: `bench_tool_${n}`,
      description: `Benchmark tool ${n}.`,
      parameters: Schema.Struct({ text: Schema.String, count: Schema.optional(Schema.Int) }),
      execute: (args) => args.text,
    })
    ctx.session.hook("tool.execute.before", () => {})
    ctx.session.hook("tool.execute.after", () => {})
  },
})

/** Turn times (prompt to idle) of `TURNS` turns that each read a small file once, after a warm-up. */
const turns = async (plugins: ReadonlyArray<PromisePlugin>) => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-plugins-"))
  writeFileSync(join(dir, "a.txt"), "alpha\n")
  const runtime = ManagedRuntime.make(
    HostLayer({
      database: join(dir, "bench.db"),
      config: { data: {}, directory: dir },
      plugins: plugins.map((plugin) => ({ source: `inline:${plugin.id}`, plugin })),
    }),
  )
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: dir })
        const samples: Array<number> = []
        for (let t = 0; t < WARMUP + TURNS; t++) {
          const start = now()
          yield* execution.prompt({ sessionID: info.id, prompt: { text: `/tool read {"path":"a.txt"}` } })
          yield* execution.wait(info.id)
          if (t >= WARMUP) samples.push(now() - start)
        }
        return samples
      }),
    )
  } finally {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Mean time per `tool.execute.before` run, with the registrations `setup` makes. */
const perCall = (setup: (hooks: Hooks["Service"]) => void) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const hooks = yield* Hooks
      setup(hooks)
      const toolHooks = makeToolHooks(hooks, 30_000)
      const ref = { sessionID: "ses", messageID: "msg", itemID: "prt", callID: "call", agentID: "build", tool: "read" }
      const args = { path: "a.txt", limit: 10 }
      for (let i = 0; i < 2_000; i++) yield* toolHooks.before(ref, args)
      const start = now()
      for (let i = 0; i < CALLS; i++) yield* toolHooks.before(ref, args)
      return (now() - start) / CALLS
    }).pipe(Effect.provide(Hooks.layer)),
  )

export const run = async () => {
  section(`plugins: a turn with one tool call (${TURNS} turns, offline provider), three tool plugins vs none`)
  // Alternate the two configurations so drift on a shared machine hits both.
  const none: Array<number> = []
  const three: Array<number> = []
  for (let round = 0; round < 2; round++) {
    none.push(...(await turns([])))
    three.push(...(await turns([toolPlugin(1), toolPlugin(2), toolPlugin(3)])))
  }
  line("no plugins: turn", `p50 ${ms(percentile(none, 50))}  p99 ${ms(percentile(none, 99))}`)
  line(
    "3 plugins (a tool + before/after hooks each): turn",
    `p50 ${ms(percentile(three, 50))}  p99 ${ms(percentile(three, 99))}`,
  )
  line("ratio 3 plugins / none (p50; target <= 1.10)", `${(percentile(three, 50) / percentile(none, 50)).toFixed(3)}x`)

  section(`plugins: tool.execute.before per call (${CALLS.toLocaleString()} calls)`)
  const bare = await perCall(() => {})
  // The Promise flavour's registration: the callback awaited through a promise, as `ctx.session.hook` does it.
  const promise = await perCall((hooks) =>
    hooks.register("tool.execute.before", {
      pluginID: "noop",
      run: (event) => Effect.tryPromise({ try: async () => void event, catch: (cause) => cause }),
    }),
  )
  const effect = await perCall((hooks) =>
    hooks.register("tool.execute.before", { pluginID: "noop", run: () => Effect.void }),
  )
  line("no hook registered", ms(bare))
  line("one no-op Promise hook: added per call (target <= 0.1 ms)", ms(promise - bare))
  line("one no-op Effect hook: added per call (target <= 0.1 ms)", ms(effect - bare))
}

if (import.meta.main) await run()
