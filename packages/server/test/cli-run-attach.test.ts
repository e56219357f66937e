import { mkdirSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { LISTENING, readUntil, runCli, spawnCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

const GREETER = fileURLToPath(new URL("./fixtures/greeter-tool.ts", import.meta.url))
const GREET = '/tool greet {"name":"B"}'

/** `opencode2 serve` in `cwd` on `db`: its URL and pid, once it listens; its stderr read up to the browser line. */
const serveIn = async (cwd: string, db: string) => {
  const child = spawnCli(["serve", "--port", "0"], { cwd, env: { OPENCODE_DB: db } })
  const { text } = await readUntil(child.stdout, (t) => LISTENING.test(t))
  const url = LISTENING.exec(text)![1]!
  const { text: err } = await readUntil(child.stderr, (t) => t.includes("in a browser"))
  return { child, url, err }
}

describe("opencode2 run next to a running serve", () => {
  it("refuses when this directory's config is not the server's, attaches (and says so) when it is, and serve refuses a second server", async () => {
    const root = tempDir()
    const a = join(root, "a")
    const b = join(root, "b")
    mkdirSync(a)
    mkdirSync(b)
    const db = join(root, "shared.db")
    writeFileSync(join(b, "opencode.json"), JSON.stringify({ model: "offline/echo", plugin: [GREETER] }))
    const server = await serveIn(a, db)
    try {
      expect(server.err).toContain(`database ${db}`)
      expect(server.err).toContain(`open ${server.url} in a browser`)

      // B's plugin tool would be missing on the server started in A: refused, with the ways on.
      const refused = await runCli(["run", GREET], { cwd: b, env: { OPENCODE_DB: db } })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`pid ${server.child.pid}, ${server.url}, started in ${realpathSync(a)}`)
      expect(refused.stderr).toContain(`${realpathSync(join(b, "opencode.json"))} applies in ${realpathSync(b)}`)
      expect(refused.stderr).toContain("--db PATH")
      expect(refused.stderr).toContain(`--attach ${server.url}`)
      // Nothing was created on the server.
      const listed = await runCli(["session", "list"], { cwd: a, env: { OPENCODE_DB: db } })
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.stdout.trim()).toBe("")

      // A separate database: run hosts itself with B's config, so the plugin's tool runs.
      const own = await runCli(["run", GREET, "--db", join(b, "own.db")], { cwd: b })
      expect(own.code, own.stderr).toBe(0)
      expect(own.stderr).toContain("hello, B, from the greeter plugin")
      expect(own.stderr).not.toContain("attached")

      // --attach accepts the server's config, and says so.
      const explicit = await runCli(["run", "hi", "--attach", server.url], { cwd: b })
      expect(explicit.code, explicit.stderr).toBe(0)
      expect(explicit.stderr).toContain(`attached to the server at ${server.url}; session directory ${realpathSync(b)}`)
      expect(explicit.stderr).toContain("the server's own config applies")

      // In A (the server's own config, here none), run attaches and names the server and where it started.
      const same = await runCli(["run", "hello"], { cwd: a, env: { OPENCODE_DB: db } })
      expect(same.code, same.stderr).toBe(0)
      expect(same.stdout).toBe("You said: hello\n")
      expect(same.stderr).toContain(
        `attached to the server at ${server.url} (pid ${server.child.pid}, started in ${a}); session directory ${realpathSync(a)}`,
      )

      // One server per database.
      const second = await runCli(["serve", "--port", "0"], { cwd: b, env: { OPENCODE_DB: db } })
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`another server is already using`)
      expect(second.stderr).toContain(`pid ${server.child.pid}, ${server.url}`)
    } finally {
      server.child.kill("SIGTERM")
      await server.child.exited
    }
  })
})
