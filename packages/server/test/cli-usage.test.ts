import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import type { Io } from "../src/cli/command.ts"
import { main } from "../src/cli/main.ts"
import { runCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

/** An `Io` that records what a command writes. */
const recorder = (options: { tty?: boolean; cwd?: string } = {}) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const status: Array<string> = []
  const io: Io = {
    env: {
      OPENCODE_CONFIG: "",
      OPENCODE_DB: "",
      XDG_CONFIG_HOME: options.cwd ?? tempDir(),
      XDG_DATA_HOME: options.cwd ?? tempDir(),
    },
    cwd: options.cwd ?? tempDir(),
    write: (text) => void stdout.push(text),
    out: (line = "") => void stdout.push(`${line}\n`),
    err: (line) => void stderr.push(`${line}\n`),
    status: (text) => void status.push(text),
    stderrIsTTY: options.tty ?? false,
  }
  return { io, stdout: () => stdout.join(""), stderr: () => stderr.join(""), status }
}

const COMMANDS = ["serve", "run", "session list", "session show", "session prune", "db stats", "db erase", "openapi"]

describe("opencode2 usage", () => {
  it("prints the overview with --help, help, and the command list", async () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      const r = recorder()
      expect(await main(argv, r.io)).toBe(0)
      expect(r.stdout()).toContain("usage: opencode2 <command> [options]")
      for (const name of COMMANDS) expect(r.stdout()).toContain(`  ${name} `)
      expect(r.stderr()).toBe("")
    }
  })

  it("prints each command's help on stdout with exit 0", async () => {
    for (const name of COMMANDS) {
      const r = recorder()
      expect(await main([...name.split(" "), "--help"], r.io), name).toBe(0)
      expect(r.stdout()).toContain(`usage: opencode2 ${name}`)
      expect(r.stdout()).toContain("-h, --help")
    }
    const viaHelp = recorder()
    expect(await main(["help", "session", "prune"], viaHelp.io)).toBe(0)
    expect(viaHelp.stdout()).toContain("usage: opencode2 session prune ID | --all")
    const group = recorder()
    expect(await main(["db", "--help"], group.io)).toBe(0)
    expect(group.stdout()).toContain("db stats")
    expect(group.stdout()).toContain("db erase")
  })

  it("answers unknown commands, unknown flags and bad values with the usage on stderr and exit 2", async () => {
    const cases: Array<[Array<string>, string]> = [
      [["bogus"], 'unknown command "bogus"'],
      [["session"], "opencode2 session: missing command"],
      [["session", "drop"], 'opencode2 session: unknown command "drop"'],
      [["db", "vacuum"], 'unknown command "vacuum"'],
      [["session", "list", "--verbose"], "unknown option --verbose"],
      [["serve", "--port"], "option --port needs a value"],
      [["serve", "--port", "http"], 'invalid value for --port: "http"'],
      [["serve", "--port", "70000"], "expected an integer 0..65535"],
      [["serve", "extra"], 'unexpected argument "extra"'],
      [["session", "list", "--json=yes"], "option --json does not take a value"],
      [["db", "stats", "--attach", "localhost:4096"], 'invalid value for --attach: "localhost:4096"'],
      [["db", "stats", "--attach", "http://127.0.0.1:1", "--db", "x.db"], "--db cannot be combined with --attach"],
      [["openapi", "--json"], "unknown option --json"],
    ]
    for (const [argv, message] of cases) {
      const r = recorder()
      expect(await main(argv, r.io), argv.join(" ")).toBe(2)
      expect(r.stderr(), argv.join(" ")).toContain(message)
      expect(r.stderr()).toContain("usage: opencode2")
      expect(r.stdout()).toBe("")
    }
  })

  it("without a terminal, the bare command (the TUI) prints a one-line hint and exits 2", async () => {
    for (const argv of [[], ["tui"], ["--attach", "http://127.0.0.1:1"]]) {
      const r = recorder()
      expect(await main(argv, r.io), argv.join(" ")).toBe(2)
      expect(r.stderr().trimEnd().split("\n"), argv.join(" ")).toEqual([
        expect.stringContaining("the terminal UI needs a terminal; use `opencode2 run TEXT`"),
      ])
      expect(r.stdout()).toBe("")
    }
    const real = await runCli([], { cwd: tempDir() })
    expect(real.code).toBe(2)
    expect(real.stderr).toContain("use `opencode2 run TEXT` for one prompt or `opencode2 serve`")
  })

  it("exits 2 from the real process too", async () => {
    const cwd = tempDir()
    const unknown = await runCli(["frobnicate"], { cwd })
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe("")
    expect(unknown.stderr).toContain('opencode2: unknown command "frobnicate"')
    const flag = await runCli(["db", "stats", "--bogus"], { cwd })
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain("usage: opencode2 db stats")
    const help = await runCli(["serve", "--help"], { cwd })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("usage: opencode2 serve")
  })

  it("prints the OpenAPI document the SDK is generated from", async () => {
    const r = recorder()
    expect(await main(["openapi"], r.io)).toBe(0)
    const committed = readFileSync(fileURLToPath(new URL("../../sdk/openapi.json", import.meta.url)), "utf8")
    expect(r.stdout()).toBe(committed)
    const paths = Object.keys(JSON.parse(r.stdout()).paths)
    expect(paths).toEqual(
      expect.arrayContaining(["/api/session/{sessionID}/prune", "/api/session/{sessionID}/erase", "/api/storage"]),
    )
  })

  it("shows a progress bar on a terminal while pruning several sessions, then the summary", async () => {
    const cwd = tempDir()
    const db = join(cwd, "tty.db")
    const server = await startTestServer({ database: db })
    for (const title of ["a", "b", "c"]) {
      const id = (await server.api.session.create({ title })).data!.data.id
      await server.api.session.prompt({ sessionID: id, prompt: { text: "/think x\nhi" } })
      await server.api.session.wait({ sessionID: id })
    }
    await server.stop()
    const r = recorder({ tty: true, cwd })
    expect(await main(["session", "prune", "--all", "--db", db], r.io)).toBe(0)
    expect(r.status.slice(0, 3).map((s) => s.replace(/ ses_\w+$/, ""))).toEqual([
      `[${"-".repeat(24)}] 0/3`,
      `[${"#".repeat(8)}${"-".repeat(16)}] 1/3`,
      `[${"#".repeat(16)}${"-".repeat(8)}] 2/3`,
    ])
    expect(r.status.at(-1)).toBe(`[${"#".repeat(24)}] 3/3 done\n`)
    expect(r.stdout()).toMatch(/^pruned 3 sessions: 3 items, \d+ bytes\n$/)
  })

  it("reports a typed failure on stderr with exit 1", async () => {
    const cwd = tempDir()
    const r = recorder({ cwd })
    expect(await main(["session", "show", "ses_x", "--db", join(cwd, "absent.db")], r.io)).toBe(1)
    expect(r.stderr()).toMatch(/^error: no database at .*absent\.db/)
    const bad = recorder({ cwd })
    bad.io.env.OPENCODE_CONFIG = join(cwd, "broken.json")
    await Bun.write(join(cwd, "broken.json"), "{ not json")
    expect(await main(["session", "list", "--db", ":memory:"], bad.io)).toBe(1)
    expect(bad.stderr()).toContain("invalid config")
  })
})
