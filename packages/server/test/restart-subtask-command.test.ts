/**
 * A `subtask: true` command survives a crash of the host like a `task` call the model made: its child's
 * answer is held mid-stream and the `opencode2 serve` child process is SIGKILLed; started again on the
 * same database, the child resumes and the parent's task call completes exactly once, with no request of
 * the parent's own model before or after.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { listAll } from "./support/e2e-events.ts"
import { spawnServe } from "./support/e2e-serve.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"
import { toolItems } from "./support/transcript.ts"

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

describe("restart during a subtask command", () => {
  it("after a SIGKILL mid-child, the child resumes and the command's task call completes exactly once", async () => {
    const dir = tempDir("oc2-subtask-restart-")
    mkdirSync(join(dir, ".opencode/command"), { recursive: true })
    writeFileSync(join(dir, ".opencode/command/survey.md"), "---\nsubtask: true\n---\nSurvey $ARGUMENTS")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    writeFileSync(config, JSON.stringify(localProviderConfig(provider.url)))
    const options = { database, config, cwd: dir }

    provider.enqueue({ text: "half a survey", hold: true }, { text: "survey done: 3 files" })
    const first = await spawnServe(options)
    const parent = (await first.api.session.create({ location: { directory: dir } })).data!.data
    await first.api.session.prompt({ sessionID: parent.id, prompt: { text: "/survey the directory" } })
    await provider.held(1)
    const [child] = (await first.api.session.list({ parentID: parent.id })).data!.data
    expect(child).toMatchObject({ parentID: parent.id, agent: "general", status: "busy" })
    await first.kill()

    const second = await spawnServe(options)
    try {
      await second.api.session.wait({ sessionID: parent.id })
      await second.api.session.wait({ sessionID: child!.id })
      expect((await second.api.session.list({ parentID: parent.id })).data!.data.map((s) => s.id)).toEqual([child!.id])
      const calls = toolItems(await listAll(second.client, parent.id))
      expect(calls).toHaveLength(1)
      expect(calls[0]!.state).toMatchObject({
        status: "completed",
        content: [{ type: "text", text: "survey done: 3 files" }],
        structured: { sessionID: child!.id },
      })
      // Two model requests in all, both the child's: the cut-off answer and the resumed one.
      expect(provider.requests).toHaveLength(2)
      const history = (await second.api.session.history({ sessionID: parent.id })).data!.data
      expect(history.filter((e) => e.type === "session.next.tool.success")).toHaveLength(1)
      expect(history.filter((e) => e.type === "session.next.tool.called")).toHaveLength(1)
      expect((await second.api.session.get({ sessionID: parent.id })).data!.data.status).toBe("idle")
    } finally {
      await second.stop()
    }
  })
})
