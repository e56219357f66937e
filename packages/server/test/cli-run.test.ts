import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { readRest, readUntil, runCli, spawnCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"

const SESSION = /^session (ses_\w+)$/m

describe("opencode2 run", () => {
  it("starts a server in process, creates a session, streams the offline answer and exits 0", async () => {
    const cwd = tempDir()
    const db = join(cwd, "run.db")
    const first = await runCli(["run", "hello", "there", "--db", db], { cwd })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe("You said: hello there\n")
    const sessionID = SESSION.exec(first.stderr)?.[1]
    expect(sessionID, first.stderr).toBeDefined()

    // Continue the same session; the transcript holds both turns.
    const second = await runCli(["run", "and again", "--session", sessionID!, "--db", db], { cwd })
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toBe("You said: and again\n")
    expect(second.stderr).toContain(`session ${sessionID}`)
    const show = await runCli(["session", "show", sessionID!, "--db", db], { cwd })
    expect(show.stdout).toContain("You said: hello there")
    expect(show.stdout).toContain("You said: and again")
    expect(show.stdout.match(/ assistant msg_/g)).toHaveLength(2)
  })

  it("uses OPENCODE_DB when no --db is given, and titles the new session after the prompt", async () => {
    const cwd = tempDir()
    const db = join(cwd, "env.db")
    const result = await runCli(["run", "title me"], { cwd, env: { OPENCODE_DB: db } })
    expect(result.code, result.stderr).toBe(0)
    const list = await runCli(["session", "list", "--db", db], { cwd })
    expect(list.stdout).toMatch(/^ses_\w+ {2}title me {2}idle {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\n$/)
  })

  it("streams text deltas as they arrive, before the answer is complete", async () => {
    const model = await startOpenAIServer()
    try {
      const cwd = tempDir()
      const config = join(cwd, "opencode.json")
      writeFileSync(config, JSON.stringify(localProviderConfig(model.url)))
      model.enqueue({ text: "streamed word by word", hold: true })
      const child = spawnCli(["run", "go", "--db", join(cwd, "stream.db")], { cwd, env: { OPENCODE_CONFIG: config } })
      await model.held()
      // The first chunk reaches stdout while the model still holds the rest of the answer.
      const { text, reader } = await readUntil(child.stdout, (so) => so.length > 0)
      expect(text.length).toBeGreaterThan(0)
      expect("streamed word by word".startsWith(text)).toBe(true)
      expect(text).not.toBe("streamed word by word")
      model.release()
      const rest = await readRest(reader)
      expect(text + rest).toBe("streamed word by word\n")
      expect(await child.exited).toBe(0)
    } finally {
      await model.close()
    }
  })

  it("fails with a clear message and exit 1 for an unknown session", async () => {
    const cwd = tempDir()
    const result = await runCli(["run", "hi", "--session", "ses_missing", "--db", join(cwd, "x.db")], { cwd })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("error: Session ses_missing not found")
  })

  it("exits 1 with the recorded error when the turn fails, said before the closing usage line", async () => {
    const cwd = tempDir()
    const result = await runCli(["run", "/error the model broke", "--db", join(cwd, "x.db")], { cwd })
    expect(result.code).toBe(1)
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines.at(-2)).toMatch(/^turn failed: .*the model broke$/)
    expect(lines.at(-1)).toMatch(/^done in \d+\.\ds$/)
  })

  it("refuses an unknown --model or --agent, or a provider without its key, before creating a session", async () => {
    const cwd = tempDir()
    const db = join(cwd, "x.db")
    const config = join(cwd, "opencode.json")
    writeFileSync(
      config,
      JSON.stringify({ provider: { local: { baseURL: "http://127.0.0.1:9/v1", apiKey: "{env:OC2_TEST_UNSET_KEY}" } } }),
    )
    const env = { OPENCODE_CONFIG: config, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" }
    for (const [flags, said] of [
      [["--model", "offline/nope"], 'model "offline/nope" cannot be used: provider "offline" has no model "nope"'],
      [["--model", "nope/x"], 'model "nope/x" cannot be used: unknown provider "nope"'],
      [["--model", "openai/gpt-5"], 'provider "openai" needs an API key: set OPENAI_API_KEY'],
      [["--model", "anthropic/claude-sonnet-4-5"], 'provider "anthropic" needs an API key: set ANTHROPIC_API_KEY'],
      [["--model", "local/m"], 'provider "local" needs the environment variable OC2_TEST_UNSET_KEY, which is not set'],
      [["--agent", "ghost"], 'unknown agent "ghost" (known: build, general)'],
    ] as const) {
      const result = await runCli(["run", "hi", "--db", db, ...flags], { cwd, env })
      expect(result.code, result.stderr).toBe(1)
      expect(result.stderr).toContain(said)
      expect(result.stderr).not.toMatch(SESSION)
    }
    const list = await runCli(["session", "list", "--db", db], { cwd })
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toBe("")

    // A known choice is recorded on the session run creates, so `--continue` keeps using it.
    const ok = await runCli(["run", "hi", "--db", db, "--model", "offline/echo", "--agent", "build"], { cwd, env })
    expect(ok.code, ok.stderr).toBe(0)
    const show = await runCli(["session", "show", SESSION.exec(ok.stderr)![1]!, "--db", db], { cwd })
    expect(show.stdout).toMatch(/^ {2}directory .*, agent build, model offline\/echo$/m)
  })

  it("talks to a running server with --attach, with the password from OPENCODE_SERVER_PASSWORD", async () => {
    const server = await startTestServer({ password: "s3cret" })
    const cwd = tempDir()
    const refused = await runCli(["run", "hi", "--attach", server.url], { cwd })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("OPENCODE_SERVER_PASSWORD")

    const result = await runCli(["run", "over http", "--attach", server.url], {
      cwd,
      env: { OPENCODE_SERVER_PASSWORD: "s3cret" },
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("You said: over http\n")
    const sessionID = SESSION.exec(result.stderr)![1]!
    const messages = (await server.api.session.messages({ sessionID })).data!.data
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])
  })

  it("refuses a bad command line with exit 2", async () => {
    const cwd = tempDir()
    for (const args of [
      ["run"],
      ["run", "   "],
      ["run", "hi", "--attach", "nope"],
      ["run", "hi", "--attach", "http://x", "--db", "y.db"],
    ]) {
      const result = await runCli(args, { cwd })
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stderr).toContain("usage: opencode2 run")
    }
  })
})
