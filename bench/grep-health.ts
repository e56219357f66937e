// How fast `opencode2 serve` answers `/api/health` while a grep whose pattern backtracks catastrophically
// runs (the matching runs in a worker; the event loop must stay free). The test
// `packages/server/test/grep-event-loop.test.ts` checks the behaviour; this measures it.
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { line, percentile, section, summary, now } from "./stats.ts"

const root = join(import.meta.dir, "..")
const PATTERN = "^(a|a)*$"

export const run = async () => {
  section("grep: /api/health while a catastrophic grep runs (opencode2 serve child)")
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-"))
  writeFileSync(join(dir, "evil.txt"), Array.from({ length: 20 }, () => `${"a".repeat(40)}!`).join("\n"))
  writeFileSync(join(dir, "opencode.json"), "{}")
  const env = {
    ...process.env,
    XDG_DATA_HOME: dir,
    XDG_CONFIG_HOME: dir,
    HOME: dir,
    OPENCODE_CONFIG: join(dir, "opencode.json"),
  }
  const child = Bun.spawn(
    [
      process.execPath,
      join(root, "packages/server/src/cli/main.ts"),
      "serve",
      "--port",
      "0",
      "--db",
      join(dir, "grep.db"),
    ],
    { cwd: dir, env, stdout: "pipe", stderr: "inherit" },
  )
  try {
    const reader = child.stdout.getReader()
    let out = ""
    while (!out.includes("listening on")) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`serve exited early: ${out}`)
      out += new TextDecoder().decode(value)
    }
    reader.releaseLock()
    const url = /listening on (\S+)/.exec(out)![1]!
    const client = createOpencodeClient({ baseUrl: url }).v2
    const sessionID = (await client.session.create({ location: { directory: dir } })).data!.data.id
    let done = false
    const turn = client.session
      .prompt({ sessionID, prompt: { text: `search\n/tool grep ${JSON.stringify({ pattern: PATTERN })}` } })
      .then(() => client.session.wait({ sessionID }))
      .finally(() => {
        done = true
      })
    // Sequential health checks for as long as the turn runs; one that does not answer in 2 s counts as 2 s.
    const latencies: Array<number> = []
    while (!done) {
      const start = now()
      const status = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.status,
        () => 0,
      )
      latencies.push(status === 200 ? now() - start : 2000)
    }
    await turn
    summary("health during the grep", latencies)
    line("health p99 during the grep (target < 100 ms)", `${percentile(latencies, 99).toFixed(1)} ms`)
  } finally {
    child.kill("SIGTERM")
    await child.exited
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
