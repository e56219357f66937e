import { Database } from "bun:sqlite"
import { MaintenanceLayer, Session } from "@opencode-ai/core"
import type { DatabaseStats } from "@opencode-ai/sdk/v2"
import { ManagedRuntime } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { readUntil, runCli, spawnCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

const DAY = 86_400_000

/** Everything retention may change, read straight from the file. */
const contents = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    const all = (sql: string) => db.query(sql).all()
    return {
      session: all("SELECT * FROM session ORDER BY id"),
      message: all("SELECT * FROM session_message ORDER BY session_id, seq"),
      event: all("SELECT * FROM event ORDER BY position"),
      base: all("SELECT * FROM journal_base ORDER BY session_id"),
      runs: all("SELECT * FROM retention_run"),
    }
  } finally {
    db.close()
  }
}

/** A database with one session last changed `age` ago and one changed now. */
const seed = async (path: string, age: number) => {
  const runtime = ManagedRuntime.make(MaintenanceLayer({ path, persist: true }))
  const real = Date.now()
  const spy = vi.spyOn(Date, "now").mockImplementation(() => real - age)
  try {
    const old = await runtime.runPromise(Session.use((s) => s.create({ directory: "/tmp", title: "old" })))
    spy.mockRestore()
    const fresh = await runtime.runPromise(Session.use((s) => s.create({ directory: "/tmp", title: "fresh" })))
    return { old: old.id, fresh: fresh.id }
  } finally {
    spy.mockRestore()
    await runtime.dispose()
  }
}

describe("opencode2 db retention", () => {
  it("--dry-run lists what it would do and changes nothing; without it, it does it and db stats reports it", async () => {
    const cwd = tempDir()
    const db = join(cwd, "retention.db")
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ storage: { retention: { delete: "30d" } } }))
    const ids = await seed(db, 40 * DAY)
    const env = { OPENCODE_CONFIG: join(cwd, "opencode.json") }

    const before = contents(db)
    const dry = await runCli(["db", "retention", "--dry-run", "--db", db], { cwd, env })
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("nothing was changed")
    expect(dry.stdout).toContain("delete: 1 session(s)")
    expect(dry.stdout).toContain(ids.old)
    expect(dry.stdout).not.toContain(ids.fresh)
    expect(contents(db)).toEqual(before)

    const run = await runCli(["db", "retention", "--db", db], { cwd, env })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain("deleted: 1 session(s)")
    const after = contents(db)
    expect(after.session.map((s: any) => s.id)).toEqual([ids.fresh])

    const stats = await runCli(["db", "stats", "--json", "--db", db], { cwd, env })
    expect(stats.code, stats.stderr).toBe(0)
    expect((JSON.parse(stats.stdout) as DatabaseStats).retention).toMatchObject({
      dryRun: false,
      deleted: { sessions: 1 },
    })
    const text = await runCli(["db", "stats", "--db", db], { cwd, env })
    expect(text.stdout).toContain("retention last run")
  })

  it("serve applies retention at start and announces it", async () => {
    const cwd = tempDir()
    const db = join(cwd, "serve.db")
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ storage: { retention: { delete: "30d" } } }))
    const ids = await seed(db, 40 * DAY)
    const child = spawnCli(["--print-logs", "serve", "--port", "0", "--db", db], {
      cwd,
      env: { OPENCODE_CONFIG: join(cwd, "opencode.json") },
    })
    try {
      const { text } = await readUntil(child.stderr, (t) => /retention: .*\n/.test(t))
      expect(text).toMatch(/retention: pruned 0 item\(s\) in 0 session\(s\), deleted 1 session\(s\)/)
      expect(contents(db).session.map((s: any) => s.id)).toEqual([ids.fresh])
    } finally {
      child.kill("SIGTERM")
      await child.exited
    }
  })

  it("a duration that does not parse: serve refuses to start, naming the key", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "opencode.json"), JSON.stringify({ storage: { retention: { prune: "two weeks" } } }))
    const result = await runCli(["serve", "--port", "0", "--db", join(cwd, "x.db")], {
      cwd,
      env: { OPENCODE_CONFIG: join(cwd, "opencode.json") },
    })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain("storage.retention.prune")
    expect(result.stderr).toContain('"two weeks"')
  })
})
