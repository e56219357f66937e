// The terminal UI in a real terminal (tmux): first frame after start, keypress-to-screen while a turn streams
// 200 deltas per second, opening a 1,000-message session, and the TUI's resident memory with it open.
// Times are measured from outside, by polling `tmux capture-pane` (a poll costs a few milliseconds, which
// bounds the resolution).
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { line, ms, now, percentile, section, summary } from "./stats.ts"

const root = join(import.meta.dir, "..")
const SOURCE = [process.execPath, join(root, "packages/server/src/cli/main.ts")]
const BINARY = join(root, "packages/server/bin/opencode2")
const SOCKET = `oc2-tui-bench-${process.pid}`

const tmux = (...args: Array<string>) => {
  const result = spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}

const env = (dir: string) => ({
  ...(process.env as Record<string, string>),
  HOME: dir,
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  OPENCODE_CONFIG: "",
  OPENCODE_DB: "",
})

let sessions = 0
/** Opens `command` in a new tmux window of 120x40 in `cwd`; the pane's process is the TUI itself. */
const open = (command: Array<string>, cwd: string, dir: string) => {
  const name = `b${++sessions}`
  const script = join(dir, `${name}.sh`)
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      ...Object.entries(env(dir))
        .filter(([k]) => /^[A-Za-z_]\w*$/.test(k))
        .map(([k, v]) => `export ${k}=${quote(v)}`),
      `cd ${quote(cwd)}`,
      `exec ${command.map(quote).join(" ")} 2>/dev/null`,
    ].join("\n"),
    { mode: 0o755 },
  )
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", script)
  const screen = () => tmux("capture-pane", "-p", "-t", name)
  const until = async (predicate: (s: string) => boolean, what: string, deadline = 30_000) => {
    const end = now() + deadline
    for (;;) {
      const s = screen()
      if (predicate(s)) return s
      if (now() > end) throw new Error(`timed out waiting for ${what}:\n${s}`)
      // A short pause between polls leaves the CPU to the TUI (this machine's cores are few).
      await Bun.sleep(2)
    }
  }
  const pid = Number(tmux("display-message", "-p", "-t", name, "#{pane_pid}").trim())
  return {
    name,
    pid,
    screen,
    until,
    type: (text: string) => void tmux("send-keys", "-t", name, "-l", text),
    keys: (...k: Array<string>) => void tmux("send-keys", "-t", name, ...k),
    close: () => void spawnSync("tmux", ["-L", SOCKET, "kill-session", "-t", name]),
  }
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024

/** The paced model (bench/tui-model.ts) as a child process: 200 deltas per second. */
const pacedModel = async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "tui-model.ts"), "2000", "5"], {
    stdout: "pipe",
    stderr: "inherit",
  })
  const reader = child.stdout.getReader()
  let out = ""
  while (!out.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) throw new Error("the paced model exited early")
    out += new TextDecoder().decode(value)
  }
  return { port: Number(out.trim()), stop: () => child.kill("SIGTERM") }
}

const serve = async (dir: string) => {
  const child = Bun.spawn([...SOURCE, "serve", "--port", "0", "--db", join(dir, "serve.db"), "--no-resume"], {
    cwd: dir,
    env: env(dir),
    stdout: "pipe",
    stderr: "ignore",
  })
  const reader = child.stdout.getReader()
  let out = ""
  while (!/listening on \S+\n/.test(out)) {
    const { value, done } = await reader.read()
    if (done) throw new Error("serve exited early")
    out += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { child, url: /listening on (\S+)/.exec(out)![1]! }
}

const firstFrame = async (label: string, command: Array<string>, dir: string) => {
  const frames: Array<number> = []
  const ready: Array<number> = []
  for (let i = 0; i < 7; i++) {
    const cwd = mkdtempSync(join(dir, "ff-"))
    const start = now()
    const term = open([...command, "--db", join(cwd, "tui.db")], cwd, dir)
    await term.until((s) => s.includes("Ask anything"), "the first frame")
    frames.push(now() - start)
    await term.until((s) => s.includes("local host") && s.includes("idle"), "the session")
    ready.push(now() - start)
    term.keys("C-c")
    term.keys("C-c")
    term.close()
  }
  line(`${label}: first frame (p50 of 7; target < 300 ms)`, ms(percentile(frames, 50)))
  line(`${label}: session open and idle (p50 of 7)`, ms(percentile(ready, 50)))
}

export const run = async () => {
  section("tui: the terminal UI in tmux (120x40)")
  if (spawnSync("tmux", ["-V"]).status !== 0) {
    line("skipped", "tmux is not installed")
    return
  }
  const dir = mkdtempSync(join(tmpdir(), "oc2-bench-tui-"))
  tmux("new-session", "-d", "-s", "keeper", "sh", "-c", "read x")
  const model = await pacedModel()
  const host = await serve(dir)
  try {
    await firstFrame("from source", SOURCE, dir)
    if (existsSync(BINARY)) await firstFrame("compiled binary", [BINARY], dir)
    else line("compiled binary", "not built (bun run build:binary)")

    // Keypress to screen while a turn streams 200 deltas per second (in-process host, paced local model).
    const cwd = mkdtempSync(join(dir, "keys-"))
    writeFileSync(
      join(cwd, "opencode.json"),
      JSON.stringify({
        model: "local/pace",
        provider: {
          local: {
            type: "openai-compatible",
            baseURL: `http://127.0.0.1:${model.port}/v1`,
            apiKey: "none",
            models: { pace: { limit: { context: 100000, output: 4096 } } },
          },
        },
      }),
    )
    const term = open([...(existsSync(BINARY) ? [BINARY] : SOURCE), "--db", join(cwd, "tui.db")], cwd, dir)
    await term.until((s) => s.includes("idle"), "the TUI")
    // The same keys with nothing streaming: what the measurement itself costs (tmux, polling).
    const idle: Array<number> = []
    let shown = ""
    for (let i = 0; i < 20; i++) {
      shown += "y"
      const start = now()
      term.type("y")
      await term.until((s) => s.includes(`│${shown}`), "the key on screen", 5_000)
      idle.push(now() - start)
    }
    summary("keypress to screen, idle (the measurement's own cost)", idle)
    term.keys("C-c") // clears the prompt (a second one would exit)
    await term.until((s) => !s.includes("│y"), "the prompt cleared")
    term.type("stream please")
    term.keys("Enter")
    await term.until((s) => /word\d+/.test(s), "streaming")
    const latencies: Array<number> = []
    let typed = ""
    for (let i = 0; i < 40; i++) {
      const streaming = term.screen().includes("busy")
      if (!streaming) break
      typed += "x"
      const start = now()
      term.type("x")
      await term.until((s) => s.includes(`│${typed}`), "the key on screen", 5_000)
      latencies.push(now() - start)
    }
    summary(`keypress to screen while streaming 200 deltas/s (target p50 < 16 ms)`, latencies)
    line("  streaming / idle, p50", `${(percentile(latencies, 50) / percentile(idle, 50)).toFixed(2)}x`)
    term.keys("C-c")
    term.keys("C-c")
    term.close()

    // A 1,000-message session (500 offline turns), switched to from a small one in the session list.
    const client = createOpencodeClient({ baseUrl: host.url })
    const make = async (title: string) => {
      const created = await client.v2.session.create({ location: { directory: dir } } as never)
      const id = (created.data as { data: { id: string } }).data.id
      await client.v2.session.update({ sessionID: id, title })
      return id
    }
    const small = await make("small one")
    await client.v2.session.prompt({ sessionID: small, prompt: { text: "the small session" } } as never)
    const big = await make("big one")
    for (let i = 0; i < 500; i++) {
      const text =
        i % 5 === 0 ? `/think step ${i}\nturn ${i}: **bold** and \`code\`` : `turn ${i}: a line of text to answer`
      await client.v2.session.prompt({ sessionID: big, prompt: { text } } as never)
      await client.v2.session.wait({ sessionID: big })
    }
    const view = open([...(existsSync(BINARY) ? [BINARY] : SOURCE), "--attach", host.url, "--session", small], dir, dir)
    await view.until((s) => s.includes("You said: the small session"), "the small session")
    const opens: Array<number> = []
    const pages: Array<number> = []
    let rss = 0
    for (let i = 0; i < 5; i++) {
      view.keys("C-s")
      await view.until((s) => s.includes("big one"), "the session list")
      view.type("big one")
      await view.until((s) => s.includes("search: big one"), "the search")
      const start = now()
      view.keys("Enter")
      await view.until((s) => s.includes("You said: turn 499: a line of text to answer"), "the last message")
      opens.push(now() - start)
      // A page up shows older messages: only rows in view are drawn.
      view.keys("Tab")
      const up = now()
      view.keys("PageUp")
      await view.until((s) => !s.includes("turn 499"), "a page up")
      pages.push(now() - up)
      view.keys("Tab")
      rss = Math.max(rss, rssOf(view.pid))
      view.keys("C-s")
      await view.until((s) => s.includes("small one"), "the session list")
      view.type("small")
      await view.until((s) => s.includes("search: small"), "the search")
      view.keys("Enter")
      await view.until((s) => s.includes("You said: the small session"), "the small session again")
    }
    view.close()
    line(
      "1,000-message session: Enter in the list to last message shown (p50 of 5; target < 200 ms)",
      ms(percentile(opens, 50)),
    )
    line("page up in it, key to screen (p50 of 5)", ms(percentile(pages, 50)))
    line("TUI resident memory with it open (max of 5; target < 150 MB)", `${(rss / 1024 / 1024).toFixed(1)} MB`)
  } finally {
    model.stop()
    host.child.kill("SIGTERM")
    await host.child.exited
    spawnSync("tmux", ["-L", SOCKET, "kill-server"])
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) await run()
