import { join } from "node:path"
import { describe, expect, it } from "vitest"
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
})
