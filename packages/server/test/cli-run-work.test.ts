import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { CLI, isolatedEnv, runCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

const SESSION = /^session (ses_\w+)$/m
const edit = (path: string, oldString: string, newString: string) =>
  `/tool edit ${JSON.stringify({ path, oldString, newString })}`

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/**
 * `opencode2 run ...args` inside a pseudo-terminal (util-linux `script`), so stdin and stderr are TTYs.
 * Each answer is typed once the terminal shows its prompt (in order); resolves with everything it showed.
 */
const runInPty = async (cwd: string, args: ReadonlyArray<string>, script: ReadonlyArray<readonly [string, string]>) => {
  const command = [process.execPath, CLI, ...args].map(quote).join(" ")
  const child = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
    cwd,
    env: isolatedEnv(cwd),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  })
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  let screen = ""
  let answered = 0
  let from = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    screen += decoder.decode(chunk.value, { stream: true })
    const next = script[answered]
    const at = next ? screen.indexOf(next[0], from) : -1
    if (next && at !== -1) {
      answered++
      from = at + next[0].length
      child.stdin.write(next[1])
      await child.stdin.flush()
    }
  }
  return { code: await child.exited, screen, answered }
}

describe("opencode2 run shows its work", () => {
  it("on a terminal: asks with the diff, applies the answer, prints the tool line and the usage", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    const result = await runInPty(
      cwd,
      ["run", "--db", join(cwd, "pty.db"), `/think let me edit\n${edit("a.txt", "hello", "bye")}`],
      // One key, no Enter.
      [["Allow?", "o"]],
    )
    expect(result.answered, result.screen).toBe(1)
    expect(result.code, result.screen).toBe(0)
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("bye\n")
    expect(result.screen).toContain("permission to edit a.txt")
    expect(result.screen).toContain("-hello")
    expect(result.screen).toContain("+bye")
    expect(result.screen).toMatch(/✓ edit a\.txt {2}edited "a\.txt" \(1 replacement\)/)
    expect(result.screen).toContain("let me edit")
    expect(result.screen).toMatch(/usage: \d+ in, \d+ out tokens · \d+\.\ds/)
  })

  it("on a terminal, always says what it covers and, for an edit, allows every later edit of the session", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    writeFileSync(join(cwd, "b.txt"), "one\n")
    const result = await runInPty(
      cwd,
      ["run", "--db", join(cwd, "pty.db"), `${edit("a.txt", "hello", "bye")}\n${edit("b.txt", "one", "two")}`],
      [["Allow?", "a"]],
    )
    expect(result.code, result.screen).toBe(0)
    expect(result.screen).toContain("[a]lways allows every file edit (edit, write, patch) for the rest of this session")
    // One answer for both files: the second edit was not asked about.
    expect(result.screen.split("Allow?").length - 1).toBe(1)
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("bye\n")
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("two\n")
  })

  it("on a terminal, Ctrl-C at a permission prompt interrupts the turn and exits 130 at once", async () => {
    const cwd = tempDir()
    const db = join(cwd, "pty.db")
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    const result = await runInPty(cwd, ["run", "--db", db, edit("a.txt", "hello", "bye")], [["Allow?", "\x03"]])
    expect(result.code, result.screen).toBe(130)
    expect(result.screen).toContain("turn interrupted")
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n")
    // The session is not left waiting for an answer.
    const sessionID = SESSION.exec(result.screen.replace(/\r/g, ""))![1]!
    const shown = await runCli(["session", "list", "--db", db], { cwd })
    expect(shown.stdout).toContain(sessionID)
    expect(shown.stdout).not.toMatch(/waiting|running/)
  })

  it("on a terminal, reject leaves the file, shows the error and exits 1: the turn stopped", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    const result = await runInPty(
      cwd,
      ["run", "--db", join(cwd, "pty.db"), edit("a.txt", "hello", "bye")],
      [
        ["Allow?", "r"],
        ["Tell the model why", "\n"],
      ],
    )
    expect(result.code, result.screen).toBe(1)
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n")
    expect(result.screen).toContain("✗ edit a.txt  the user rejected this call")
    expect(result.screen).toMatch(/turn stopped: permission for edit a\.txt was rejected\r?\n.*usage: /)
  })

  it("on a terminal, a reject with a message for the model lets the turn go on and complete: exit 0", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    const result = await runInPty(
      cwd,
      ["run", "--db", join(cwd, "pty.db"), edit("a.txt", "hello", "bye")],
      [
        // A key typed with Enter: the Enter is not taken as the (empty) reason.
        ["Allow?", "r\n"],
        ["Tell the model why", "keep it\n"],
      ],
    )
    expect(result.code, result.screen).toBe(0)
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n")
    expect(result.screen).toContain("✗ edit a.txt  the user rejected this call: keep it")
    expect(result.screen).not.toContain("turn stopped")
  })

  it("without a terminal an ask is rejected with a clear message; --allow and --yes answer once", async () => {
    const cwd = tempDir()
    const db = join(cwd, "run.db")
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    const refused = await runCli(["run", "--db", db, edit("a.txt", "hello", "bye")], { cwd })
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toContain("turn stopped: permission for edit a.txt was rejected")
    expect(refused.stderr).toContain(
      "permission needed for edit a.txt: rejected, there is no terminal to ask on (pass --allow edit or --yes",
    )
    expect(refused.stderr).toContain("✗ edit a.txt  the user rejected this call")
    expect(refused.stdout).toBe("")
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n")

    const allowed = await runCli(
      ["run", "--db", db, "--allow", "bash", "--allow", "edit", edit("a.txt", "hello", "bye")],
      { cwd },
    )
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.stderr).toContain('✓ edit a.txt  edited "a.txt" (1 replacement)')
    expect(allowed.stdout).toBe('edit returned: edited "a.txt" (1 replacement)\n')
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("bye\n")

    const yes = await runCli(["run", "--db", db, "--yes", `/tool bash {"command":"echo made > made.txt"}`], { cwd })
    expect(yes.code, yes.stderr).toBe(0)
    expect(yes.stderr).toMatch(/✓ bash echo made > made\.txt/)
    expect(existsSync(join(cwd, "made.txt"))).toBe(true)
  })

  it("--format json prints NDJSON events only; a prompt on stdin works; --continue picks the directory's latest session", async () => {
    const cwd = tempDir()
    const db = join(cwd, "json.db")
    const json = await runCli(["run", "--db", db, "--format", "json", "hello json"], { cwd })
    expect(json.code, json.stderr).toBe(0)
    const events = json.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: { sessionID?: string } })
    expect(events[0]!.type).toBe("server.connected")
    const types = events.map((e) => e.type)
    expect(types).toContain("session.next.prompt.admitted")
    expect(types).toContain("session.next.text.delta")
    expect(types.at(-1)).toBe("session.next.turn.ended")
    const sessionID = SESSION.exec(json.stderr)![1]!
    const scoped = events.filter((e) => e.data.sessionID !== undefined)
    expect(scoped.length).toBeGreaterThan(0)
    expect(scoped.every((e) => e.data.sessionID === sessionID)).toBe(true)

    const child = Bun.spawn([process.execPath, CLI, "run", "--db", db, "--continue"], {
      cwd,
      env: isolatedEnv(cwd),
      stdin: new TextEncoder().encode("from stdin\n"),
      stdout: "pipe",
      stderr: "pipe",
    })
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    expect(code, stderr).toBe(0)
    expect(stdout).toBe("You said: from stdin\n")
    expect(stderr).toContain(`session ${sessionID}`)
    const show = await runCli(["session", "show", sessionID, "--db", db], { cwd })
    expect(show.stdout).toContain(`directory ${realpathSync(cwd)}`)
    expect(show.stdout).toContain("You said: hello json")
    expect(show.stdout).toContain("You said: from stdin")

    const elsewhere = tempDir()
    const none = await runCli(["run", "--db", db, "--continue", "x"], { cwd: elsewhere })
    expect(none.code).toBe(1)
    expect(none.stderr).toContain("no session in")
  })
})
