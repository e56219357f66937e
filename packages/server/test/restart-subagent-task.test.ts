/**
 * A `task` call survives a crash of the host. A real `opencode2 serve` child runs a parent session whose
 * model delegates to the `general` subagent; the child session's answer is held mid-stream and the
 * process is SIGKILLed. Started again on the same database, the host resumes both: the child continues
 * its turn (one child, one prompt), and the parent's call, still running, waits for it and completes
 * exactly once with the child's final text, after which the parent's model is asked once more.
 */
import { RESTART_NOTICE } from "@opencode-ai/core"
import { writeFileSync } from "node:fs"
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

describe("restart during a task call", () => {
  it("after a SIGKILL mid-child, the child resumes and the parent's call completes exactly once", async () => {
    const dir = tempDir("oc2-task-restart-")
    const database = join(dir, "opencode.db")
    const config = join(dir, "opencode.json")
    writeFileSync(config, JSON.stringify(localProviderConfig(provider.url)))
    const options = { database, config, cwd: dir }

    provider.enqueue(
      {
        toolCalls: [
          {
            name: "task",
            arguments: { description: "survey", prompt: "survey the directory", subagent_type: "general" },
          },
        ],
      },
      { text: "child half way and more", hold: true },
      { text: "child finished: all surveyed" },
      { text: "parent done" },
    )
    const first = await spawnServe(options)
    const parent = (await first.api.session.create({ location: { directory: dir } })).data!.data
    await first.api.session.prompt({ sessionID: parent.id, prompt: { text: "delegate the survey" } })
    await provider.held(1)
    const [child] = (await first.api.session.list({ parentID: parent.id })).data!.data
    expect(child).toMatchObject({ parentID: parent.id, agent: "general", status: "busy" })
    await first.kill()

    const second = await spawnServe(options)
    try {
      await second.api.session.wait({ sessionID: parent.id })
      await second.api.session.wait({ sessionID: child!.id })
      const children = (await second.api.session.list({ parentID: parent.id })).data!.data
      expect(children.map((s) => s.id)).toEqual([child!.id])

      const parentMessages = await listAll(second.client, parent.id)
      const calls = toolItems(parentMessages)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.state).toMatchObject({
        status: "completed",
        content: [{ type: "text", text: "child finished: all surveyed" }],
        structured: { sessionID: child!.id },
      })
      expect(parentMessages.at(-1)).toMatchObject({ type: "assistant", finish: "stop" })

      const childMessages = await listAll(second.client, child!.id)
      expect(childMessages.filter((m) => m.type === "user")).toHaveLength(1)
      // Each resumed session was told once that the server restarted, whoever resumed it first.
      for (const list of [parentMessages, childMessages])
        expect(list.filter((m) => m.type === "synthetic" && m.text === RESTART_NOTICE)).toHaveLength(1)
      expect(childMessages.at(-1)).toMatchObject({ type: "assistant", finish: "stop" })

      // Four model requests in all: the parent's call, the child's cut-off answer, its resumed answer, the
      // parent's answer after the call. Nobody asked the parent's model to delegate again.
      expect(provider.requests).toHaveLength(4)
      const history = (await second.api.session.history({ sessionID: parent.id })).data!.data
      expect(history.filter((e) => e.type === "session.next.tool.success")).toHaveLength(1)
      expect(history.filter((e) => e.type === "session.next.tool.called")).toHaveLength(1)
    } finally {
      await second.stop()
    }
  })
})
