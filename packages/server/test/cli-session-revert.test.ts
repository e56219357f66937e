import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

const sessionOf = (stderr: string) => /^session (ses_\w+)$/m.exec(stderr)![1]!

describe("opencode2 session revert", () => {
  it("stages a revert to a message (files restored, later messages hidden), clears it, then commits one", async () => {
    const cwd = tempDir()
    const db = join(cwd, "r.db")
    const poem = join(cwd, "poem.txt")
    writeFileSync(poem, "roses are red\n")
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ permission: { edit: "allow" } }))
    const cli = (...args: Array<string>) => runCli([...args, "--db", db], { cwd })
    const exported = async (sessionID: string) =>
      JSON.parse((await cli("session", "export", sessionID)).stdout).messages as Array<{ id: string; type: string }>

    const first = await cli("run", "say hello")
    expect(first.code, first.stderr).toBe(0)
    const sessionID = sessionOf(first.stderr)
    const write = JSON.stringify({ path: "poem.txt", content: "violets are blue\n" })
    const second = await cli("run", `/tool write ${write}`, "--session", sessionID)
    expect(second.code, second.stderr).toBe(0)
    expect(readFileSync(poem, "utf8")).toBe("violets are blue\n")
    const all = await exported(sessionID)
    expect(all.length).toBeGreaterThan(2)
    const boundary = all[1]!.id

    const staged = await cli("session", "revert", sessionID, boundary)
    expect(staged.code, staged.stderr).toBe(0)
    expect(staged.stdout).toContain(`staged revert of ${sessionID} to ${boundary}`)
    expect(staged.stdout).toMatch(/^restored .*poem\.txt$/m)
    expect(readFileSync(poem, "utf8")).toBe("roses are red\n")
    expect((await exported(sessionID)).map((m) => m.id)).toEqual([all[0]!.id, boundary])

    const cleared = await cli("session", "revert", sessionID, "--clear")
    expect(cleared.code, cleared.stderr).toBe(0)
    expect(cleared.stdout).toContain(`cleared the revert of ${sessionID}`)
    expect(readFileSync(poem, "utf8")).toBe("violets are blue\n")
    expect((await exported(sessionID)).map((m) => m.id)).toEqual(all.map((m) => m.id))

    const json = await cli("session", "revert", sessionID, boundary, "--json")
    expect(json.code, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({ messageID: boundary, restored: [{ path: expect.any(String) }] })
    const committed = await cli("session", "revert", sessionID, "--commit")
    expect(committed.code, committed.stderr).toBe(0)
    expect(committed.stdout).toContain(`committed the revert of ${sessionID}`)
    expect((await exported(sessionID)).map((m) => m.id)).toEqual([all[0]!.id, boundary])
    expect(readFileSync(poem, "utf8")).toBe("roses are red\n")
    // Committed: nothing is staged any more, so clearing brings nothing back.
    expect((await cli("session", "revert", sessionID, "--clear")).code).toBe(0)
    expect((await exported(sessionID)).map((m) => m.id)).toEqual([all[0]!.id, boundary])
  })

  it("refuses wrong ids with typed errors and bad usage with exit 2, changing nothing", async () => {
    const cwd = tempDir()
    const db = join(cwd, "w.db")
    const cli = (...args: Array<string>) => runCli([...args, "--db", db], { cwd })
    const sessionID = sessionOf((await cli("run", "one")).stderr)
    const otherID = sessionOf((await cli("run", "two")).stderr)
    const foreign = JSON.parse((await cli("session", "export", otherID)).stdout).messages[0].id as string
    const before = (await cli("session", "export", sessionID)).stdout

    const wrongMessage = await cli("session", "revert", sessionID, foreign)
    expect(wrongMessage.code).toBe(1)
    expect(wrongMessage.stderr).toContain(`not found in session ${sessionID}`)
    expect(wrongMessage.stderr).toContain("(MessageNotFoundError)")
    const missingMessage = await cli("session", "revert", sessionID, "msg_0000000000missing")
    expect(missingMessage.code).toBe(1)
    expect(missingMessage.stderr).toContain("(MessageNotFoundError)")
    const missingSession = await cli("session", "revert", "ses_0000000000missing", "--clear")
    expect(missingSession.code).toBe(1)
    expect(missingSession.stderr).toContain("(SessionNotFoundError)")
    expect((await cli("session", "export", sessionID)).stdout).toBe(before)

    for (const args of [[], [foreign, "--clear"], ["--clear", "--commit"], ["--keep-files", "--commit"]]) {
      const usage = await cli("session", "revert", sessionID, ...args)
      expect(usage.code, args.join(" ")).toBe(2)
      expect(usage.stderr).toContain("opencode2 session revert:")
    }
    expect((await cli("session", "export", sessionID)).stdout).toBe(before)
  })

  it("works through a running server with --attach, with the server's typed 404", async () => {
    const server = await startTestServer()
    const sessionID = (await server.api.session.create({ title: "remote" })).data!.data.id
    await server.api.session.prompt({ sessionID, prompt: { text: "hello" } })
    await server.api.session.wait({ sessionID })
    const [prompt] = (await server.api.session.messages({ sessionID })).data!.data
    const cli = (...args: Array<string>) => runCli([...args, "--attach", server.url], { cwd: tempDir() })

    const staged = await cli("session", "revert", sessionID, prompt!.id, "--keep-files")
    expect(staged.code, staged.stderr).toBe(0)
    expect((await server.api.session.get({ sessionID })).data!.data.revert).toMatchObject({ messageID: prompt!.id })
    expect((await server.api.session.messages({ sessionID })).data!.data.map((m) => m.id)).toEqual([prompt!.id])
    const cleared = await cli("session", "revert", sessionID, "--clear")
    expect(cleared.code, cleared.stderr).toBe(0)
    expect((await server.api.session.get({ sessionID })).data!.data.revert).toBeUndefined()

    const missing = await cli("session", "revert", sessionID, "msg_0000000000missing")
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("(MessageNotFoundError)")
  })
})
