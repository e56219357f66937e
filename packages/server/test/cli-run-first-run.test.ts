import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { CLI, isolatedEnv, runCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

describe("opencode2 run: first-run frictions", () => {
  it("a misspelt model in opencode.json is refused before a session is created", async () => {
    const cwd = tempDir()
    const db = join(cwd, "m.db")
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ model: "offline/ecoh" }))
    const result = await runCli(["run", "hello", "--db", db], { cwd })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `the config's model "offline/ecoh" is not available: provider "offline" has offline/echo`,
    )
    expect(result.stderr).toContain("--model PROVIDER/MODEL")
    expect(result.stderr).not.toMatch(/^session ses_/m)
    const listed = await runCli(["session", "list", "--db", db], { cwd })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout.trim()).toBe("")
    // An unknown provider says so too; --model overrides the config's.
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ model: "antrhopic/claude" }))
    const provider = await runCli(["run", "hello", "--db", db], { cwd })
    expect(provider.stderr).toContain('no usable provider "antrhopic"')
    const overridden = await runCli(["run", "hello", "--db", db, "--model", "offline/echo"], { cwd })
    expect(overridden.code, overridden.stderr).toBe(0)
  })

  it("a reader that closes stdout early (| head) ends run quietly: no EPIPE trace, status 0", async () => {
    const cwd = tempDir()
    const long = Array.from({ length: 20_000 }, (_, i) => String(i)).join(" ")
    const child = Bun.spawn(
      [
        "bash",
        "-c",
        `"${process.execPath}" "${CLI}" run --db "${join(cwd, "p.db")}" "$LONG" | head -c 5; exit \${PIPESTATUS[0]}`,
      ],
      { cwd, env: isolatedEnv(cwd, { LONG: long }), stdout: "pipe", stderr: "pipe" },
    )
    const [code, out, err] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ])
    expect(out).toBe("You s")
    expect(err).not.toContain("EPIPE")
    expect(err).not.toMatch(/\n\s+at /)
    expect(code, err).toBe(0)
  })
})
