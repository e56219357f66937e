// Start-up time of `opencode2 serve` (from source, and from the compiled binary when built) and its
// resident memory once idle.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { line, ms, now, percentile, section } from "./stats.ts"

const root = join(import.meta.dir, "..")

const startOnce = async (command: Array<string>) => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  const env = { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, HOME: dir, OPENCODE_CONFIG: "" }
  const start = now()
  const child = Bun.spawn([...command, "serve", "--port", "0", "--db", join(dir, "start.db")], {
    cwd: dir,
    env,
    stdout: "pipe",
    stderr: "inherit",
  })
  const reader = child.stdout.getReader()
  let out = ""
  while (!out.includes("listening on")) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`serve exited early: ${out}`)
    out += new TextDecoder().decode(value)
  }
  const elapsed = now() - start
  const url = /listening on (\S+)/.exec(out)![1]!
  // Idle: one health request answered, then read the resident set size.
  await fetch(`${url}/api/health`)
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024
  child.kill("SIGTERM")
  const code = await child.exited
  rmSync(dir, { recursive: true, force: true })
  return { elapsed, rss, code }
}

const measure = async (label: string, command: Array<string>, target: string) => {
  const runs = []
  for (let i = 0; i < 7; i++) runs.push(await startOnce(command))
  line(
    `${label}: start until listening (p50 of 7; target < ${target})`,
    ms(
      percentile(
        runs.map((r) => r.elapsed),
        50,
      ),
    ),
  )
  line(
    `${label}: idle resident memory (p50; target < 120 MiB)`,
    `${(
      percentile(
        runs.map((r) => r.rss),
        50,
      ) /
      1024 /
      1024
    ).toFixed(1)} MiB`,
  )
  line(`${label}: SIGTERM exit codes`, [...new Set(runs.map((r) => r.code))].join(","))
}

export const run = async () => {
  section("startup: opencode2 serve on a fresh database")
  await measure("from source", [process.execPath, join(root, "packages/server/src/cli/main.ts")], "0.5 s")
  const binary = join(root, "packages/server/bin/opencode2")
  if (existsSync(binary)) await measure("compiled binary", [binary], "0.2 s")
  else line("compiled binary", "not built (bun run build:binary)")
}

if (import.meta.main) await run()
