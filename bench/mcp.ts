// MCP servers: start-up of `opencode2 serve` with none and with 3 configured (they connect on first use, so
// the difference should be noise; target < 150 ms), the time the first listing takes to connect all 3 (in
// parallel), and an MCP tool call's host overhead: the host's tool (listing, plan, run) against the same
// call made with a bare SDK client on the same server, which is the server's own time (target ≤ 2 ms).
import { Effect, ManagedRuntime } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "../packages/core/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js"
import { StdioClientTransport } from "../packages/core/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js"
import { HostLayer } from "../packages/core/src/host.ts"
import { Mcp } from "../packages/core/src/mcp/mcp.ts"
import { line, ms, now, percentile, section } from "./stats.ts"

const root = join(import.meta.dir, "..")
const fixture = join(root, "packages/core/test/fixtures/mcp/stdio-server.ts")
const server = { type: "local" as const, command: [process.execPath, fixture] }

const startOnce = async (mcp: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-mcp-"))
  mkdirSync(join(dir, ".git"))
  writeFileSync(join(dir, "opencode.json"), JSON.stringify({ mcp }))
  const env = { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, HOME: dir, OPENCODE_CONFIG: "" }
  const start = now()
  const child = Bun.spawn(
    [process.execPath, join(root, "packages/server/src/cli/main.ts"), "serve", "--port", "0", "--db", join(dir, "db")],
    { cwd: dir, env, stdout: "pipe", stderr: "inherit" },
  )
  const reader = child.stdout.getReader()
  let out = ""
  while (!out.includes("listening on")) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`serve exited early: ${out}`)
    out += new TextDecoder().decode(value)
  }
  const started = now() - start
  const url = /listening on (\S+)/.exec(out)![1]!
  const before = now()
  const status = (await (await fetch(`${url}/api/mcp`)).json()) as { data: Record<string, { status: string }> }
  const connected = now() - before
  const states = Object.values(status.data).map((s) => s.status)
  if (states.some((s) => s !== "connected")) throw new Error(`not all connected: ${JSON.stringify(status.data)}`)
  child.kill("SIGTERM")
  await child.exited
  rmSync(dir, { recursive: true, force: true })
  return { started, connected }
}

const startup = async () => {
  const none: Array<number> = []
  const three: Array<number> = []
  const connect: Array<number> = []
  // Interleaved, so machine load drifts alike for both.
  for (let i = 0; i < 7; i++) {
    none.push((await startOnce({})).started)
    const run = await startOnce({ a: server, b: server, c: server })
    three.push(run.started)
    connect.push(run.connected)
  }
  const p50none = percentile(none, 50)
  const p50three = percentile(three, 50)
  line("serve start, no MCP server (p50 of 7)", ms(p50none))
  line("serve start, 3 MCP servers (p50 of 7)", ms(p50three))
  line("difference (target < 150 ms)", ms(p50three - p50none))
  line("first GET /api/mcp: connect 3 servers (p50 of 7)", ms(percentile(connect, 50)))
}

const callOverhead = async () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-mcp-"))
  const runtime = ManagedRuntime.make(
    HostLayer({
      database: join(dir, "db"),
      config: { data: { mcp: { bench: server } }, directory: dir },
      autoResume: false,
    }),
  )
  const direct = new Client({ name: "bench", version: "1" })
  await direct.connect(new StdioClientTransport({ command: server.command[0]!, args: server.command.slice(1) }))
  const signal = new AbortController().signal
  const ctx = { sessionID: "ses_bench", directory: dir, signal }
  const hostCall = Effect.gen(function* () {
    const tool = (yield* (yield* Mcp).find("bench_echo"))!
    const plan = yield* tool.plan!({ text: "hi" }, ctx)
    return yield* plan.run()
  })
  const host: Array<number> = []
  const bare: Array<number> = []
  for (let i = 0; i < 50; i++) await runtime.runPromise(hostCall) // warm-up (connects)
  for (let i = 0; i < 50; i++) await direct.callTool({ name: "echo", arguments: { text: "hi" } })
  // Interleaved pairs: each host call next to a bare call on a server in the same state.
  for (let i = 0; i < 500; i++) {
    let start = now()
    await runtime.runPromise(hostCall)
    host.push(now() - start)
    start = now()
    await direct.callTool({ name: "echo", arguments: { text: "hi" } })
    bare.push(now() - start)
  }
  await direct.close()
  await runtime.dispose()
  rmSync(dir, { recursive: true, force: true })
  line("echo call, bare SDK client: the server's own time (p50)", ms(percentile(bare, 50)))
  line("echo call through the host's MCP tool (p50)", ms(percentile(host, 50)))
  line("host overhead per call, p50 (target ≤ 2 ms)", ms(percentile(host, 50) - percentile(bare, 50)))
  line("host overhead per call, p99", ms(percentile(host, 99) - percentile(bare, 99)))
}

export const run = async () => {
  section("mcp: MCP servers (stdio fixture server)")
  await startup()
  await callOverhead()
}

if (import.meta.main) await run()
