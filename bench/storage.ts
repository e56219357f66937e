// Prune throughput, erase time and peak memory, on a session holding 50 MB of tool output.
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { line, ms, section } from "./stats.ts"

const child = async (...args: Array<string>) => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "storage-child.ts"), ...args], {
    stdout: "pipe",
    stderr: "inherit",
  })
  const out = await new Response(proc.stdout).text()
  if ((await proc.exited) !== 0) throw new Error(`storage-child ${args[0]} failed`)
  return JSON.parse(out) as {
    result: { bytes?: number; items?: number; events?: number }
    elapsed: number
    baselineRss: number
    maxRss: number
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

export const run = async () => {
  section("storage: a session with 50 assistant messages x 1 MB of tool output (50 MB)")
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  try {
    const plain = join(dir, "plain.db")
    await child("seed", plain, "no-journal")
    const size = statSync(plain).size
    const prune = await child("prune", plain, "no-journal")
    const pruned = prune.result.bytes ?? 0
    line(
      "prune throughput",
      `${(pruned / 1024 / 1024 / (prune.elapsed / 1000)).toFixed(1)} MB/s (${mib(pruned)} in ${ms(prune.elapsed)})`,
    )
    line(
      "prune peak memory (process VmHWM; baseline at start)",
      `${mib(prune.maxRss)} (baseline ${mib(prune.baselineRss)})`,
    )
    line("database file before / after prune", `${mib(size)} / ${mib(statSync(plain).size)}`)

    const journaled = join(dir, "journal.db")
    await child("seed", journaled, "persist")
    await child("prune", journaled, "persist")
    const before = statSync(journaled).size
    const erase = await child("erase", journaled, "persist")
    line(
      "erase time (journal on, after prune)",
      `${ms(erase.elapsed)} (${erase.result.events} events, ${mib(erase.result.bytes ?? 0)} erased)`,
    )
    line("erase peak memory (process VmHWM)", mib(erase.maxRss))
    line("database file before / after erase", `${mib(before)} / ${mib(statSync(journaled).size)}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
