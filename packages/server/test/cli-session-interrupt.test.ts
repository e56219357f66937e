import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { CLI, isolatedEnv, LISTENING, readUntil, runCli, spawnCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

const EDIT = `/tool edit ${JSON.stringify({ path: "a.txt", oldString: "hello", newString: "bye" })}`
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/** `opencode2 run ...args` in a pseudo-terminal, SIGKILLed once it shows its permission prompt; its session id. */
const runKilledAtAsk = async (cwd: string, args: ReadonlyArray<string>) => {
  const command = ["exec", ...[process.execPath, CLI, ...args].map(quote)].join(" ")
  const child = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
    cwd,
    env: isolatedEnv(cwd),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  })
  const { text } = await readUntil(child.stdout, (t) => t.includes("Allow?"))
  child.kill("SIGKILL")
  await child.exited
  return /session (ses_\w+)/.exec(text)![1]!
}

describe("opencode2 session interrupt", () => {
  it("ends a turn a killed run left waiting, locally and through a server; typed errors otherwise", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "a.txt"), "hello\n")
    const db = join(cwd, "i.db")

    // Locally: the killed in-process run left the session holding its claim.
    const local = await runKilledAtAsk(cwd, ["run", "--db", db, EDIT])
    const stopped = await runCli(["session", "interrupt", local, "--db", db], { cwd })
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(stopped.stdout).toMatch(new RegExp(`^interrupted ${local} \\(was \\w+\\)\\n$`))
    const again = await runCli(["session", "interrupt", local, "--db", db], { cwd })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`session ${local} is not running (status idle)`)
    expect(again.stderr).toContain("SessionNotRunningError")
    const unknown = await runCli(["session", "interrupt", "ses_doesnotexist", "--db", db], { cwd })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("SessionNotFoundError")

    // Through a server: the turn keeps waiting there after the attached run is gone.
    const serve = spawnCli(["serve", "--port", "0"], { cwd, env: { OPENCODE_DB: db } })
    try {
      const url = LISTENING.exec((await readUntil(serve.stdout, (t) => LISTENING.test(t))).text)![1]!
      const remote = await runKilledAtAsk(cwd, ["run", "--attach", url, EDIT])
      const api = createOpencodeClient({ baseUrl: url }).v2
      expect((await api.session.get({ sessionID: remote })).data?.data.status).toBe("waiting")
      const viaServer = await runCli(["session", "interrupt", remote, "--attach", url], { cwd })
      expect(viaServer.code, viaServer.stderr).toBe(0)
      expect(viaServer.stdout).toBe(`interrupted ${remote} (was waiting)\n`)
      await api.session.wait({ sessionID: remote })
      expect((await api.session.get({ sessionID: remote })).data?.data.status).toBe("idle")
      expect((await api.session.permission.list({ sessionID: remote })).data?.data).toEqual([])
      const notRunning = await runCli(["session", "interrupt", remote, "--attach", url], { cwd })
      expect(notRunning.code).toBe(1)
      expect(notRunning.stderr).toContain("SessionNotRunningError")
    } finally {
      serve.kill("SIGTERM")
      await serve.exited
    }
  })
})
