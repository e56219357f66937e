import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { CLI, isolatedEnv, runCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

describe("opencode2 logs, config problems and session management", () => {
  it("`openapi` piped into another process is complete JSON", async () => {
    const cwd = tempDir()
    const child = Bun.spawn(
      [
        "sh",
        "-c",
        `"${process.execPath}" "${CLI}" openapi | node -e "process.stdout.write(String(Object.keys(JSON.parse(require('fs').readFileSync(0))).length))"`,
      ],
      {
        cwd,
        env: isolatedEnv(cwd),
        stdout: "pipe",
        stderr: "pipe",
      },
    )
    const [code, out, err] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ])
    expect(code, err).toBe(0)
    expect(Number(out)).toBeGreaterThan(3)
  })

  it("a typo'd config key is warned about with its path on stderr; `run` stdout holds only the answer at info level", async () => {
    const cwd = tempDir()
    mkdirSync(join(cwd, ".git"))
    const nested = join(cwd, "src", "deep")
    mkdirSync(nested, { recursive: true })
    // Found by walking up from the working directory to the git root.
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ modle: "x/y", agent: { build: { sytem: "hi" } } }))
    const result = await runCli(["--log-level", "info", "run", "hello", "--db", join(cwd, "a.db")], { cwd: nested })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe("You said: hello\n")
    expect(result.stderr).toMatch(/WARN .*unknown key "modle"/)
    expect(result.stderr).toMatch(/WARN .*unknown key "agent\.build\.sytem"/)
  })

  it("a broken config names its line and column; a bad --log-level is a usage error", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "opencode.json"), '{\n  "model": "offline/echo",\n  "events": { "persist": tru }\n}\n')
    const broken = await runCli(["run", "hello", "--db", join(cwd, "a.db")], { cwd })
    expect(broken.code).toBe(1)
    expect(broken.stderr).toMatch(/opencode\.json: .* at line 3, column \d+/)
    const bad = await runCli(["--log-level", "loud", "openapi"], { cwd })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('invalid value for --log-level: "loud"')
  })

  it("session rename, export, delete and import round-trip a transcript through a local database", async () => {
    const cwd = tempDir()
    const db = join(cwd, "s.db")
    const first = await runCli(["run", "remember me", "--db", db], { cwd })
    expect(first.code, first.stderr).toBe(0)
    const sessionID = /^session (ses_\w+)$/m.exec(first.stderr)![1]!
    const renamed = await runCli(["session", "rename", sessionID, "kept", "title", "--db", db], { cwd })
    expect(renamed.stdout.trim()).toBe(`${sessionID}  kept title`)
    const exported = await runCli(["session", "export", sessionID, "--db", db, "--output", "s.json"], { cwd })
    expect(exported.code, exported.stderr).toBe(0)
    const document = JSON.parse(readFileSync(join(cwd, "s.json"), "utf8"))
    expect(document).toMatchObject({ format: "opencode2.session", version: 2 })
    expect(document.session).toMatchObject({ id: sessionID, title: "kept title", location: { directory: cwd } })
    expect(document.messages.map((m: { type: string }) => m.type)).toEqual(["user", "assistant"])

    expect((await runCli(["session", "delete", sessionID, "--db", db], { cwd })).code).toBe(0)
    const gone = await runCli(["session", "show", sessionID, "--db", db], { cwd })
    expect(gone.code).toBe(1)

    const imported = await runCli(["session", "import", "s.json", "--db", db], { cwd })
    expect(imported.code, imported.stderr).toBe(0)
    const restoredID = imported.stdout.trim()
    expect(restoredID).toMatch(/^ses_/)
    const again = await runCli(["session", "export", restoredID, "--db", db], { cwd })
    const restored = JSON.parse(again.stdout)
    expect(restored.session.title).toBe("kept title")
    // Ids are new and seqs count the events of the new session; the content is the same.
    const strip = (messages: Array<Record<string, unknown>>) =>
      messages.map(({ id: _, sessionID: __, time: ___, seq: ____, ...rest }) => rest)
    expect(strip(restored.messages)).toEqual(strip(document.messages))

    // A document that is not an export is refused whole.
    writeFileSync(join(cwd, "bad.json"), JSON.stringify({ format: "something else" }))
    const refused = await runCli(["session", "import", "bad.json", "--db", db], { cwd })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("not a session export")
    const list = await runCli(["session", "list", "--db", db], { cwd })
    expect(list.stdout.trim().split("\n")).toHaveLength(1)
  })

  it("session export through a running server writes the same document as from its database", async () => {
    const cwd = tempDir()
    const db = join(cwd, "remote.db")
    const server = await startTestServer({ database: db })
    const sessionID = (await server.api.session.create({ title: "over http" })).data!.data.id
    await server.api.session.prompt({ sessionID, prompt: { text: "/think hmm\n/tool list {}\nhello" } })
    await server.api.session.wait({ sessionID })
    const remote = await runCli(["session", "export", sessionID, "--attach", server.url], { cwd })
    expect(remote.code, remote.stderr).toBe(0)
    await server.stop()
    const local = await runCli(["session", "export", sessionID, "--db", db], { cwd })
    expect(local.code, local.stderr).toBe(0)
    // The server's session carries its context figures; an export holds the session record only.
    expect(JSON.parse(remote.stdout).session.context).toBeUndefined()
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout))
    writeFileSync(join(cwd, "remote.json"), remote.stdout)
    const imported = await runCli(["session", "import", "remote.json", "--db", db], { cwd })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout.trim()).toMatch(/^ses_/)
  })

  it("serves the config's JSON Schema at /config.schema.json behind the same auth as every route", async () => {
    const server = await startTestServer({ password: "pw" })
    expect((await server.fetch("/config.schema.json")).status).toBe(401)
    const response = await server.fetch("/config.schema.json", {
      headers: { authorization: `Basic ${Buffer.from("opencode:pw").toString("base64")}` },
    })
    expect(response.status).toBe(200)
    const schema = (await response.json()) as { properties: Record<string, unknown>; additionalProperties: unknown }
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["model", "provider", "agent", "plugin"]))
    expect(schema.additionalProperties).toBe(false)
    await server.stop()
  })
})
