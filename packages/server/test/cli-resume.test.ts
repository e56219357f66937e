import type { ConfigData } from "@opencode-ai/core"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { LISTENING, readRest, readUntil, runCli, spawnCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"

const configFor = (model: OpenAIServer, extra: ConfigData = {}) => localProviderConfig(model.url, extra)

/** `opencode2 serve --port 0 ...args` from source; resolves once it listens. */
const serve = async (cwd: string, args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawnCli(["serve", "--port", "0", ...args], { cwd, env })
  const { text, reader } = await readUntil(child.stdout, (out) => LISTENING.test(out))
  const match = LISTENING.exec(text)
  if (!match) throw new Error(`serve exited (${await child.exited}): ${await new Response(child.stderr).text()}`)
  void readRest(reader)
  return { child, client: createOpencodeClient({ baseUrl: match[1]! }).v2 }
}

/** A database holding one session whose turn a SIGKILLed server left claimed (suspended). */
const suspended = async (model: OpenAIServer) => {
  const cwd = tempDir()
  const db = join(cwd, "resume.db")
  const config = join(cwd, "opencode.json")
  writeFileSync(config, JSON.stringify(configFor(model)))
  const env = { OPENCODE_CONFIG: config }
  const first = await serve(cwd, ["--db", db], env)
  const sessionID = (await first.client.session.create({ location: { directory: cwd } })).data!.data.id
  model.enqueue({ text: "cut off", hold: true })
  await first.client.session.prompt({ sessionID, prompt: { text: "first" } })
  await model.held()
  first.child.kill("SIGKILL")
  await first.child.exited
  return { cwd, db, config, env, sessionID }
}

describe("resuming on start", () => {
  it("serve resumes a suspended turn by default, not with --no-resume or server.autoResume: false", async () => {
    const model = await startOpenAIServer()
    try {
      const { cwd, db, env, sessionID } = await suspended(model)
      const requests = model.requests.length

      const noResume = await serve(cwd, ["--db", db, "--no-resume"], env)
      expect((await noResume.client.session.get({ sessionID })).data!.data.status).toBe("suspended")
      noResume.child.kill("SIGTERM")
      expect(await noResume.child.exited).toBe(0)

      const off = join(cwd, "no-resume.json")
      writeFileSync(off, JSON.stringify(configFor(model, { server: { autoResume: false } })))
      const configured = await serve(cwd, ["--db", db], { OPENCODE_CONFIG: off })
      expect((await configured.client.session.get({ sessionID })).data!.data.status).toBe("suspended")
      configured.child.kill("SIGTERM")
      expect(await configured.child.exited).toBe(0)
      expect(model.requests.length).toBe(requests)

      model.enqueue({ text: "resumed answer" })
      const resuming = await serve(cwd, ["--db", db], env)
      await resuming.client.session.wait({ sessionID })
      expect((await resuming.client.session.get({ sessionID })).data!.data.status).toBe("idle")
      expect(model.requests.length).toBe(requests + 1)
      resuming.child.kill("SIGINT")
      expect(await resuming.child.exited).toBe(0)
    } finally {
      await model.close()
    }
  })

  it("run continues a suspended session, then runs its prompt and prints only that answer", async () => {
    const model = await startOpenAIServer()
    try {
      const { cwd, db, env, sessionID } = await suspended(model)
      model.enqueue({ text: "the resumed turn" }, { text: "the new answer" })
      const result = await runCli(["run", "next", "--session", sessionID, "--db", db], { cwd, env })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe("the new answer\n")
      const show = await runCli(["session", "show", sessionID, "--db", db], { cwd, env })
      expect(show.stdout).toContain("the resumed turn")
      expect(show.stdout).toContain("status idle")
    } finally {
      await model.close()
    }
  })
})

describe("opencode2 run and Ctrl-C", () => {
  it("interrupts the turn on SIGINT and exits 130", async () => {
    const model = await startOpenAIServer()
    try {
      const cwd = tempDir()
      const config = join(cwd, "opencode.json")
      writeFileSync(config, JSON.stringify(configFor(model)))
      const db = join(cwd, "int.db")
      model.enqueue({ text: "never finished", hold: true })
      const child = spawnCli(["run", "go", "--db", db], { cwd, env: { OPENCODE_CONFIG: config } })
      await model.held()
      // The first chunk has been streamed: the run is following the turn.
      const { reader } = await readUntil(child.stdout, (out) => out.length > 0)
      child.kill("SIGINT")
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text(), readRest(reader)])
      expect(code).toBe(130)
      expect(stderr).toContain("turn interrupted")
      const list = await runCli(["session", "list", "--db", db], { cwd, env: { OPENCODE_CONFIG: config } })
      expect(list.stdout).toMatch(/ idle /)
    } finally {
      await model.close()
    }
  })
})
