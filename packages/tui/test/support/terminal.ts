/**
 * A real terminal for the TUI: a tmux session on a private socket, driven with `send-keys` and read with
 * `capture-pane`. Assertions poll the captured screen until the expected text shows or a deadline passes.
 */
import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { CLI, isolatedEnv } from "./host.ts"
import { tempDir } from "./tmp.ts"

/** Whether tmux is installed (the terminal tests skip without it). */
export const hasTmux = spawnSync("tmux", ["-V"]).status === 0

const SOCKET = `oc2-tui-test-${process.pid}`
let count = 0
let started = false

const tmux = (...args: Array<string>) => {
  const result = spawnSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}

afterAll(() => {
  if (hasTmux) spawnSync("tmux", ["-L", SOCKET, "kill-server"])
})

const DEADLINE_MS = 20_000

export interface Terminal {
  readonly name: string
  /** The directory the TUI runs in. */
  readonly cwd: string
  /** The screen as text, one line per row. */
  screen(): string
  /** Waits until the screen contains `text` (or matches it); returns the screen. */
  waitFor(text: string | RegExp, deadlineMs?: number): Promise<string>
  /** Waits until `predicate` holds for the screen. */
  waitUntil(predicate: (screen: string) => boolean, what: string, deadlineMs?: number): Promise<string>
  /** Types text literally. */
  type(text: string): void
  /** Sends tmux key names (`Enter`, `C-c`, `Escape`, `Up`...). */
  keys(...names: Array<string>): void
  resize(width: number, height: number): void
  /** What the wrapper printed after the TUI exited: its status and whether the tty settings came back. */
  afterExit(deadlineMs?: number): Promise<{ code: number; restored: boolean; screen: string }>
  close(): void
}

/**
 * Opens the TUI (`opencode2 ARGS...`) in a new tmux session of `width` x `height`, in `cwd` (a fresh
 * directory by default). The wrapper shell records the terminal settings before and after, and prints
 * the exit status when the TUI is gone.
 */
export const openTerminal = (
  options: {
    args?: ReadonlyArray<string>
    width?: number
    height?: number
    cwd?: string
    env?: Record<string, string>
  } = {},
): Terminal => {
  const cwd = options.cwd ?? tempDir("oc2-tui-")
  const name = `t${++count}`
  const home = tempDir("oc2-tui-home-")
  const env = isolatedEnv(home, options.env)
  const script = join(home, "run.sh")
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      ...Object.entries(env)
        .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
        .map(([k, v]) => `export ${k}=${quote(v)}`),
      `cd ${quote(cwd)}`,
      "before=$(stty -g)",
      `${quote(process.execPath)} ${quote(CLI)} ${(options.args ?? []).map(quote).join(" ")} 2>${quote(join(home, "stderr.log"))}`,
      "code=$?",
      'if [ "$(stty -g)" = "$before" ]; then restored=yes; else restored=no; fi',
      "clear",
      'echo "TUI-EXITED code=$code restored=$restored"',
      "exec sleep 3600",
      "",
    ].join("\n"),
    { mode: 0o755 },
  )
  // A session that outlives the tests' own keeps the tmux server up between them (it exits when empty).
  if (!started) {
    tmux("new-session", "-d", "-s", "keeper", "sh", "-c", "read x")
    started = true
  }
  tmux("new-session", "-d", "-s", name, "-x", String(options.width ?? 100), "-y", String(options.height ?? 30), script)
  const screen = () => tmux("capture-pane", "-p", "-t", name)
  const waitUntil = async (predicate: (s: string) => boolean, what: string, deadlineMs = DEADLINE_MS) => {
    const end = Date.now() + deadlineMs
    let last = ""
    for (;;) {
      last = screen()
      if (predicate(last)) return last
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the screen was:\n${last}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    name,
    cwd,
    screen,
    waitUntil,
    waitFor: (text, deadlineMs) =>
      waitUntil(
        (s) => (typeof text === "string" ? s.includes(text) : text.test(s)),
        JSON.stringify(String(text)),
        deadlineMs,
      ),
    type: (text) => void tmux("send-keys", "-t", name, "-l", text),
    keys: (...names) => void tmux("send-keys", "-t", name, ...names),
    resize: (width, height) => void tmux("resize-window", "-t", name, "-x", String(width), "-y", String(height)),
    afterExit: async (deadlineMs) => {
      const s = await waitUntil((x) => /TUI-EXITED code=\d+ restored=\w+/.test(x), "the TUI to exit", deadlineMs)
      const match = /TUI-EXITED code=(\d+) restored=(\w+)/.exec(s)!
      return { code: Number(match[1]), restored: match[2] === "yes", screen: s }
    },
    close: () => void spawnSync("tmux", ["-L", SOCKET, "kill-session", "-t", name]),
  }
}
