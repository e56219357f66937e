import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

describe("opencode2 session fork", () => {
  it("copies a local session up to a message into a new session with parentID; a foreign message is refused", async () => {
    const cwd = tempDir()
    const db = join(cwd, "f.db")
    const first = await runCli(["run", "first question", "--db", db], { cwd })
    expect(first.code, first.stderr).toBe(0)
    const sessionID = /^session (ses_\w+)$/m.exec(first.stderr)![1]!
    const second = await runCli(["run", "second question", "--session", sessionID, "--db", db], { cwd })
    expect(second.code, second.stderr).toBe(0)
    const original = JSON.parse((await runCli(["session", "export", sessionID, "--db", db], { cwd })).stdout)
    expect(original.messages.map((m: { type: string }) => m.type)).toEqual(["user", "assistant", "user", "assistant"])

    const forked = await runCli(["session", "fork", sessionID, "--message", original.messages[1].id, "--db", db], {
      cwd,
    })
    expect(forked.code, forked.stderr).toBe(0)
    const forkID = forked.stdout.trim()
    expect(forkID).toMatch(/^ses_/)
    const copy = JSON.parse((await runCli(["session", "export", forkID, "--db", db], { cwd })).stdout)
    expect(copy.session).toMatchObject({ parentID: sessionID, location: original.session.location })
    expect(copy.messages.map((m: { text?: string; type: string }) => m.text ?? m.type)).toEqual([
      "first question",
      "assistant",
    ])

    const other = await runCli(["run", "elsewhere", "--db", db], { cwd })
    const otherID = /^session (ses_\w+)$/m.exec(other.stderr)![1]!
    const otherMessages = JSON.parse((await runCli(["session", "export", otherID, "--db", db], { cwd })).stdout)
    const refused = await runCli(
      ["session", "fork", sessionID, "--message", otherMessages.messages[0].id, "--db", db],
      {
        cwd,
      },
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`not found in session ${sessionID}`)
  })

  it("forks through a running server with --attach", async () => {
    const server = await startTestServer()
    const sessionID = (await server.api.session.create({ title: "remote" })).data!.data.id
    await server.api.session.prompt({ sessionID, prompt: { text: "hello" } })
    await server.api.session.wait({ sessionID })
    const forked = await runCli(["session", "fork", sessionID, "--attach", server.url], { cwd: tempDir() })
    expect(forked.code, forked.stderr).toBe(0)
    const fork = (await server.api.session.get({ sessionID: forked.stdout.trim() })).data!.data
    expect(fork).toMatchObject({ parentID: sessionID, title: "remote (fork)" })
    const messages = (await server.api.session.messages({ sessionID: fork.id })).data!.data
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])
  })
})
