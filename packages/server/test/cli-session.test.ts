import type { OpencodeClient, SessionMessage, SessionMessageAssistant } from "@opencode-ai/sdk/v2"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { runCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { finishedTurn, messagesOf } from "./support/transcript.ts"

/** One offline turn: user prompt, assistant (reasoning + tool call), assistant (final text). */
const turn = async (client: OpencodeClient, title: string) => {
  const { sessionID } = await finishedTurn(client.v2, "/think pondering\n/tool list {}\nplease", { title })
  const items = await messagesOf(client.v2, sessionID)
  return {
    sessionID,
    items: items as unknown as [SessionMessage, SessionMessageAssistant, SessionMessageAssistant],
  }
}

/** A database file with two sessions that each had one turn; the server that wrote it is stopped. */
const seeded = async () => {
  const cwd = tempDir()
  const db = join(cwd, "seed.db")
  const server = await startTestServer({ database: db })
  const a = await turn(server.client, "first session")
  const b = await turn(server.client, "second session")
  const stats = (await server.api.storage.stats()).data!.data
  await server.stop()
  return { cwd, db, a, b, stats }
}

describe("opencode2 session list / show", () => {
  it("lists sessions newest first, one line each: id, title, status, updated", async () => {
    const { cwd, db, a, b } = await seeded()
    const result = await runCli(["session", "list", "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.trimEnd().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(
      new RegExp(`^${b.sessionID} +second session +idle +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`),
    )
    expect(lines[1]).toMatch(new RegExp(`^${a.sessionID} +first session +idle +`))

    const asJson = JSON.parse((await runCli(["session", "list", "--db", db, "--json"], { cwd })).stdout)
    expect(asJson.map((s: { id: string }) => s.id)).toEqual([b.sessionID, a.sessionID])
  })

  it("shows a transcript readably: type, origin, content items, and the placeholder of a retracted message", async () => {
    const cwd = tempDir()
    const db = join(cwd, "show.db")
    const server = await startTestServer({ database: db })
    const { sessionID, items } = await turn(server.client, "shown")
    const notice = (await server.api.session.synthetic({ sessionID, text: "a notice", resume: false })).data!.data
    const retracted = (await server.api.session.retract({ sessionID, messageID: notice.id })).data!.data
    await server.stop()

    const result = await runCli(["session", "show", sessionID, "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    const out = result.stdout
    expect(out).toContain(`${sessionID}  shown`)
    const [user, first, second] = items
    expect(out).toContain(`#${user.seq} user ${user.id} (origin user)`)
    expect(out).toContain("  /think pondering\n  /tool list {}\n  please")
    expect(out).toContain(
      `#${first.seq} assistant ${first.id} (origin ${first.origin}, offline/echo, agent build, finish tool-calls)`,
    )
    expect(out).toContain("  ~ pondering")
    expect(out).toContain("  [tool list completed] {}")
    expect(out).toContain(`#${second.seq} assistant ${second.id}`)
    expect(out).toContain("  You said: please")
    expect(out).toContain(`synthetic ${notice.id} (origin host)`)
    expect(out).toContain(`[retracted by user at `)
    expect(out).toContain(retracted.placeholder!)
    expect(out).not.toContain("a notice")
  })

  it("fails with exit 1 for an unknown session or a missing database, and 2 without an id", async () => {
    const { cwd, db } = await seeded()
    const unknown = await runCli(["session", "show", "ses_missing", "--db", db], { cwd })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("Session ses_missing not found")
    const missing = await runCli(["session", "list", "--db", join(cwd, "nowhere.db")], { cwd })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("no database at")
    const noID = await runCli(["session", "show", "--db", db], { cwd })
    expect(noID.code).toBe(2)
    expect(noID.stderr).toContain("missing ID")
  })

  it("works against a running server with --attach", async () => {
    const server = await startTestServer()
    const { sessionID } = await turn(server.client, "remote one")
    const cwd = tempDir()
    const list = await runCli(["session", "list", "--attach", server.url], { cwd })
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(new RegExp(`^${sessionID} +remote one +idle `))
    const show = await runCli(["session", "show", sessionID, "--attach", server.url], { cwd })
    expect(show.stdout).toContain("You said: please")
  })
})

describe("opencode2 session prune", () => {
  it("prunes every session and prints one summary line when stderr is not a terminal", async () => {
    const { cwd, db, a, stats } = await seeded()
    const result = await runCli(["session", "prune", "--all", "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe("")
    const freed = stats.items.reasoning + stats.items.tool
    expect(result.stdout).toBe(`pruned 2 sessions: 4 items, ${freed} bytes\n`)

    const show = await runCli(["session", "show", a.sessionID, "--db", db], { cwd })
    expect(show.stdout).not.toContain("~ pondering")
    // A pruned call keeps its item, without input or output.
    expect(show.stdout).toContain("[tool list completed, pruned by user]")
    expect(show.stdout).not.toContain("[tool list completed] {}")
    expect(show.stdout).toContain("You said: please")
    expect(show.stdout).toContain("/think pondering")
  })

  it("prunes one session and only the requested types", async () => {
    const { cwd, db, a } = await seeded()
    const result = await runCli(["session", "prune", a.sessionID, "--types", "reasoning", "--db", db], { cwd })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^pruned 1 session: 1 item, \d+ bytes\n$/)
    const show = await runCli(["session", "show", a.sessionID, "--db", db], { cwd })
    expect(show.stdout).toContain("[tool list completed] {}")
    expect(show.stdout).not.toContain("~ pondering")
  })

  it("selects sessions by age with --older-than", async () => {
    const { cwd, db } = await seeded()
    const recent = await runCli(["session", "prune", "--all", "--older-than", "1", "--db", db], { cwd })
    expect(recent.code).toBe(0)
    expect(recent.stdout).toBe("pruned 0 sessions: 0 items, 0 bytes\n")
    const all = await runCli(["session", "prune", "--all", "--older-than", "0", "--db", db], { cwd })
    expect(all.stdout).toMatch(/^pruned 2 sessions: 4 items, /)
  })

  it("reports and skips a busy session, exiting 0 unless every session failed", async () => {
    const model = await startOpenAIServer()
    try {
      const cwd = tempDir()
      const db = join(cwd, "busy.db")
      const server = await startTestServer({
        database: db,
        config: localProviderConfig(model.url),
      })
      const idle = (await server.api.session.create({ title: "idle" })).data!.data.id
      model.enqueue({ reasoning: "hmm", text: "done" })
      await server.api.session.prompt({ sessionID: idle, prompt: { text: "one" } })
      await server.api.session.wait({ sessionID: idle })
      const busy = (await server.api.session.create({ title: "busy" })).data!.data.id
      model.enqueue({ text: "held", hold: true })
      await server.api.session.prompt({ sessionID: busy, prompt: { text: "two" } })
      await model.held()

      // The CLI works on the same database file while the server holds the busy session's claim.
      const all = await runCli(["session", "prune", "--all", "--db", db], { cwd })
      expect(all.code, all.stderr).toBe(0)
      expect(all.stderr).toMatch(new RegExp(`^skipped ${busy}: Session ${busy} is busy`, "m"))
      expect(all.stdout).toMatch(/^pruned 1 session: 1 item, \d+ bytes; 1 busy skipped\n$/)

      const only = await runCli(["session", "prune", busy, "--db", db], { cwd })
      expect(only.code).toBe(1)
      expect(only.stdout).toBe("pruned 0 sessions: 0 items, 0 bytes; 1 busy skipped\n")

      const viaServer = await runCli(["session", "prune", busy, "--attach", server.url], { cwd })
      expect(viaServer.code).toBe(1)
      expect(viaServer.stderr).toContain(`skipped ${busy}`)

      model.release()
      await server.api.session.wait({ sessionID: busy })
      const after = await runCli(["session", "prune", busy, "--attach", server.url], { cwd })
      expect(after.code, after.stderr).toBe(0)
    } finally {
      await model.close()
    }
  })

  it("refuses a bad command line with exit 2 and the usage", async () => {
    const { cwd, db, a } = await seeded()
    const cases: Array<[Array<string>, string]> = [
      [["session", "prune", "--db", db], "give a session ID or --all"],
      [["session", "prune", a.sessionID, "--all", "--db", db], "not both"],
      [["session", "prune", a.sessionID, "--older-than", "3", "--db", db], "--older-than needs --all"],
      [["session", "prune", "--all", "--older-than", "soon", "--db", db], 'invalid value for --older-than: "soon"'],
      [["session", "prune", a.sessionID, "--types", "text", "--db", db], 'invalid value for --types: "text"'],
      [["session", "prune", a.sessionID, "--types", "", "--db", db], "invalid value for --types"],
      [["session", "prune", a.sessionID, "--frobnicate", "--db", db], "unknown option --frobnicate"],
    ]
    for (const [args, message] of cases) {
      const result = await runCli(args, { cwd })
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain("usage: opencode2 session prune")
    }
  })
})
