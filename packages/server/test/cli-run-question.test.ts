import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runWith, type Terminal } from "../src/cli/run.ts"
import { runCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

const ASK = `/tool question ${JSON.stringify({
  questions: [
    {
      question: "Which license?",
      header: "License",
      options: [
        { label: "MIT", description: "permissive" },
        { label: "GPL", description: "copyleft" },
      ],
    },
  ],
})}`

const SESSION = /^session (ses_\w+)$/m

describe("opencode2 run and the question tool", () => {
  it("without a terminal refuses the question: the call fails, the turn goes on, run exits", async () => {
    const cwd = tempDir()
    const db = join(cwd, "q.db")
    // stdin is not a terminal here: a run that waited for an answer would never exit.
    const result = await runCli(["run", ASK, "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain("question License: refused, there is no terminal to ask on (pass --yes")
    expect(result.stderr).toMatch(/✗ question .*dismissed/)
    const sessionID = SESSION.exec(result.stderr)?.[1]
    const show = await runCli(["session", "show", sessionID!, "--db", db], { cwd })
    expect(show.stdout).toContain("dismissed the question")
  })

  it("--yes answers each question with its first option", async () => {
    const cwd = tempDir()
    const db = join(cwd, "q.db")
    const result = await runCli(["run", ASK, "--yes", "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain("answered License with the first option (--yes)")
    expect(result.stderr).toMatch(/✓ question/)
    const sessionID = SESSION.exec(result.stderr)?.[1]
    const show = await runCli(["session", "show", sessionID!, "--db", db], { cwd })
    expect(show.stdout).toContain('"Which license?" = "MIT"')
  })

  it("on a terminal shows each question with numbered options and reads the choice", async () => {
    const cwd = tempDir()
    const db = join(cwd, "q.db")
    const prompts: Array<string> = []
    // Out of range first: asked again; then the second option.
    const typed = ["7", "2"]
    const terminal: Terminal = {
      interactive: true,
      tty: false,
      styled: false,
      question: async (prompt) => {
        prompts.push(prompt)
        return typed.shift() ?? ""
      },
      readAll: async () => "",
    }
    const err: Array<string> = []
    const io = {
      env: {},
      cwd,
      write: () => {},
      out: () => {},
      err: (line: string) => void err.push(line),
      status: () => {},
      stderrIsTTY: false,
    }
    const code = await runWith({ db } as Parameters<typeof runWith>[0], [ASK], io, terminal)
    expect(code, err.join("\n")).toBe(0)
    expect(err.join("\n")).toContain("? Which license?")
    expect(err.join("\n")).toContain("2. GPL - copyleft")
    expect(prompts).toHaveLength(2)
    const sessionID = err.map((line) => SESSION.exec(line)?.[1]).find(Boolean)
    const show = await runCli(["session", "show", sessionID!, "--db", db], { cwd })
    expect(show.stdout).toContain('"Which license?" = "GPL"')
  })
})
