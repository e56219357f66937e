import { Database } from "bun:sqlite"
import type { DatabaseStats, OpencodeClient } from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"
import { finishedTurn } from "./support/transcript.ts"

const turn = async (client: OpencodeClient, text: string) =>
  (await finishedTurn(client.v2, text, { title: "stats" })).sessionID

const stats = async (cwd: string, args: Array<string>): Promise<DatabaseStats> => {
  const result = await runCli(["db", "stats", "--json", ...args], { cwd })
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as DatabaseStats
}

describe("opencode2 db stats", () => {
  it("prints the stats as JSON, for all sessions or one, and reflects the bytes a prune frees", async () => {
    const cwd = tempDir()
    const db = join(cwd, "stats.db")
    const server = await startTestServer({ database: db })
    const big = await turn(server.client, `/think ${"a long deliberation ".repeat(50)}\n/tool list {}\nok`)
    const small = await turn(server.client, "hi")
    await server.stop()

    const all = await stats(cwd, ["--db", db])
    expect(all.path).toBe(db)
    expect(all.files.database).toBeGreaterThan(0)
    expect(all.sessions.map((s) => s.sessionID).sort()).toEqual([big, small].sort())
    const before = all.sessions.find((s) => s.sessionID === big)!
    expect(before.items.reasoning).toBeGreaterThan(1000)
    expect(all.items.reasoning).toBe(before.items.reasoning)

    const one = await stats(cwd, ["--db", db, "--session", small])
    expect(one.sessions.map((s) => s.sessionID)).toEqual([small])
    expect(one.sessions[0]!.items).toEqual({ text: expect.any(Number), reasoning: 0, tool: 0 })

    const pruned = await runCli(["session", "prune", big, "--db", db], { cwd })
    expect(pruned.stdout).toContain(`${before.items.reasoning + before.items.tool} bytes`)
    const after = (await stats(cwd, ["--db", db, "--session", big])).sessions[0]!
    // A removed reasoning item is gone; a pruned tool call keeps its item (name, ids, times) without input or output.
    expect(after.items).toMatchObject({ text: before.items.text, reasoning: 0 })
    expect(after.items.tool).toBeGreaterThan(0)
    expect(after.items.tool).toBeLessThan(before.items.tool)
    // The session shrank by the long deliberation (over 1000 bytes), less the ids a removal records.
    expect(before.bytes - after.bytes).toBeGreaterThan(1000)
    expect(before.bytes - after.bytes).toBeGreaterThan(before.items.tool - after.items.tool)
  })

  it("prints a human table by default", async () => {
    const cwd = tempDir()
    const db = join(cwd, "table.db")
    const server = await startTestServer({ database: db })
    const sessionID = await turn(server.client, "hello")
    await server.stop()
    const result = await runCli(["db", "stats", "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain(`database  ${db}`)
    // The journal is on by default: the turn's events are in it.
    expect(result.stdout).toMatch(/^journal +[1-9]\d* events, [\d.]+ (B|KiB)$/m)
    expect(result.stdout).toMatch(/^session +messages +bytes +text +reasoning +tool +journal +title$/m)
    expect(result.stdout).toMatch(
      new RegExp(`^${sessionID} +2 +\\d+ B +\\d+ B +0 B +0 B +[\\d.]+ (B|KiB) +stats$`, "m"),
    )
  })

  it("answers exit 1 for an unknown session, and works with --attach", async () => {
    const server = await startTestServer()
    const sessionID = await turn(server.client, "remote")
    const cwd = tempDir()
    const unknown = await runCli(["db", "stats", "--session", "ses_missing", "--attach", server.url], { cwd })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("Session ses_missing not found")
    const remote = await stats(cwd, ["--attach", server.url, "--session", sessionID])
    expect(remote.path).toBe(server.database)
    expect(remote.sessions[0]!.messages).toBe(2)
  })
})

describe("opencode2 db erase", () => {
  it("erases superseded content from the journal of the local database", async () => {
    const cwd = tempDir()
    const db = join(cwd, "erase.db")
    const config = join(cwd, "opencode.json")
    writeFileSync(config, JSON.stringify({ events: { persist: true } }))
    const server = await startTestServer({ database: db, config: { events: { persist: true } } })
    const sessionID = await turn(server.client, "/think the password is hunter2\nhello")
    // The prompt is corrected and its reasoning pruned: the secret leaves the transcript, but the journal
    // keeps the original payloads until erase.
    const [user] = (await server.api.session.messages({ sessionID })).data!.data
    await server.api.session.correct({ sessionID, messageID: user!.id, text: "hello" })
    await server.stop()
    expect(
      (await runCli(["session", "prune", sessionID, "--db", db], { cwd, env: { OPENCODE_CONFIG: config } })).code,
    ).toBe(0)
    const journalHas = (text: string) => {
      const sqlite = new Database(db, { readonly: true })
      try {
        return (
          sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM event WHERE instr(data, ?) > 0").get(text)!
            .n > 0
        )
      } finally {
        sqlite.close()
      }
    }
    expect(journalHas("hunter2")).toBe(true)

    const result = await runCli(["db", "erase", "--session", sessionID, "--db", db], {
      cwd,
      env: { OPENCODE_CONFIG: config },
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      new RegExp(`^erased ${sessionID}: [1-9]\\d* events rewritten, [1-9]\\d* fields, [1-9]\\d* bytes\\n$`),
    )
    expect(journalHas("hunter2")).toBe(false)
    // What is visible stays.
    const show = await runCli(["session", "show", sessionID, "--db", db], { cwd })
    expect(show.stdout).toContain("  hello\n")
    expect(show.stdout).toContain("You said: hello")
  })

  it("needs --session (exit 2) and an existing session (exit 1)", async () => {
    const cwd = tempDir()
    const db = join(cwd, "e.db")
    const server = await startTestServer({ database: db })
    await server.stop()
    const missingFlag = await runCli(["db", "erase", "--db", db], { cwd })
    expect(missingFlag.code).toBe(2)
    expect(missingFlag.stderr).toContain("missing --session ID")
    const unknown = await runCli(["db", "erase", "--session", "ses_missing", "--db", db], { cwd })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("Session ses_missing not found")
  })
})
