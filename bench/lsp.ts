// Language servers after edits, with the real typescript-language-server of the `lsp-ts` fixture: the cold
// first edit (server start + project load + diagnostics), the warm per-edit time of `write` with
// diagnostics against a bare client's own wait for the same server's answer (the host's added time), the
// servers' RSS (the server's process group: typescript-language-server and tsserver), and the host's
// largest event-loop stall while servers start and answer (target < 20 ms).
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Config } from "../packages/core/src/config/config.ts"
import { Formatters } from "../packages/core/src/format/format.ts"
import { LspClient } from "../packages/core/src/lsp/client.ts"
import { Lsp } from "../packages/core/src/lsp/lsp.ts"
import { availableServers } from "../packages/core/src/lsp/servers.ts"
import { builtinTools } from "../packages/core/src/tool/registry.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const fixture = join(import.meta.dir, "../packages/core/test/fixtures/lsp-ts")
const EDITS = 30

/** Resident memory (kB) of every process in `pgid`'s group, from /proc (Linux). */
const groupRss = (pgid: number): number => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[2]) !== pgid) continue
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "utf8"))
      total += rss ? Number(rss[1]) : 0
    } catch {
      // Gone meanwhile.
    }
  }
  return total
}

/** The largest delay of a 5 ms timer while `work` runs: how long the event loop was blocked at most. */
const stallDuring = async <A>(work: () => Promise<A>): Promise<{ value: A; stall: number }> => {
  let stall = 0
  let last = now()
  const timer = setInterval(() => {
    const t = now()
    stall = Math.max(stall, t - last - 5)
    last = t
  }, 5)
  try {
    return { value: await work(), stall }
  } finally {
    clearInterval(timer)
  }
}

const content = (i: number) =>
  i % 2 === 0 ? `export const n${i}: number = "x"\n` : `export const n${i}: number = ${i}\n`

export const run = async () => {
  section("language servers (typescript-language-server, warm and cold)")
  const directory = mkdtempSync(join(fixture, "work-bench-"))
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(Lsp.layer, Formatters.layer).pipe(Layer.provide(Config.layer({ data: {}, directory }))),
  )
  try {
    const write = await runtime.runPromise(
      Effect.gen(function* () {
        const lsp = yield* Lsp
        const formatters = yield* Formatters
        const tools = builtinTools({ afterEdit: { lsp, formatters, timeout: 60_000, warnings: 10 } })
        return tools.find((t) => t.name === "write")!
      }),
    )
    const ctx = { sessionID: "ses_bench", directory, signal: new AbortController().signal }
    const edit = (path: string, text: string) =>
      runtime.runPromise(Effect.flatMap(write.plan!({ path, content: text }, ctx), (plan) => plan.run()))

    const cold = await stallDuring(() => {
      const start = now()
      return edit("a.ts", content(0)).then(() => now() - start)
    })
    line("cold first edit (start, load, diagnostics)", ms(cold.value))

    // The same server's own answer, without the host: a bare client on its own file.
    const spec = availableServers(undefined, directory).find((s) => s.name === "typescript")!
    const bare = await LspClient.start(spec, directory, 60_000)
    const bareFile = join(directory, "b.ts")
    writeFileSync(bareFile, content(0))
    await bare.diagnostics(bareFile, content(0), 60_000)

    const host: Array<number> = []
    const own: Array<number> = []
    const warm = await stallDuring(async () => {
      for (let i = 1; i <= EDITS; i++) {
        let start = now()
        await edit("a.ts", content(i))
        host.push(now() - start)
        writeFileSync(bareFile, content(i))
        start = now()
        await bare.diagnostics(bareFile, content(i), 60_000)
        own.push(now() - start)
      }
    })
    await bare.stop()
    const p = (samples: Array<number>, q: number) => percentile(samples, q)
    line(`warm edit with diagnostics p50 / p99 (${EDITS} edits)`, `${ms(p(host, 50))} / ${ms(p(host, 99))}`)
    line("server's own answer p50 / p99 (bare client)", `${ms(p(own, 50))} / ${ms(p(own, 99))}`)
    line("host's added time p50 / p99", `${ms(p(host, 50) - p(own, 50))} / ${ms(p(host, 99) - p(own, 99))}`)
    const status = await runtime.runPromise(Effect.flatMap(Lsp, (lsp) => lsp.status()))
    const pid = status.find((s) => s.name === "typescript")?.pid
    if (pid !== undefined)
      line("server RSS (typescript-language-server + tsserver)", `${Math.round(groupRss(pid) / 1024)} MiB`)
    line("max event-loop stall: cold start / warm edits (target < 20 ms)", `${ms(cold.stall)} / ${ms(warm.stall)}`)
  } finally {
    await runtime.dispose()
    rmSync(directory, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
