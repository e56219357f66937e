import { realpathSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createTestHost, type TestHost } from "../src/testing/index.ts"
import { tempDir, writeFileAt } from "./support/tmp.ts"
import { messagesOf, toolItems } from "./support/transcript.ts"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const messages = (h: TestHost, sessionID: string) => messagesOf(h.client, sessionID, 200)

const scout = { agent: { scout: { mode: "subagent" as const, description: "finds things" } } }

describe("a command with subtask: true", () => {
  it("runs as a task call: a child session with parentID answers, the parent's model is not asked", async () => {
    const directory = realpathSync(tempDir())
    writeFileAt(
      join(directory, ".opencode/command/research.md"),
      "---\ndescription: Research a topic\nagent: scout\nsubtask: true\n---\nResearch $ARGUMENTS and report back.",
    )
    host = await createTestHost({ directory, config: scout })
    const parent = await host.session()
    host.model.reply("caching: use an LRU")

    const admitted = (await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "/research caching" } }))
      .data!.data
    expect(admitted.prompt.text).toBe("Research caching and report back.")
    await host.client.session.wait({ sessionID: parent.id })

    // One model request in all, the child's, under the command's subagent.
    const requests = host.model.requests
    expect(requests).toHaveLength(1)
    expect(requests[0]!.agentID).toBe("scout")
    expect(requests[0]!.sessionID).not.toBe(parent.id)
    const childID = requests[0]!.sessionID

    const transcript = await messages(host, parent.id)
    expect(transcript.map((m) => m.type)).toEqual(["user", "assistant"])
    expect(transcript[0]).toMatchObject({
      id: admitted.id,
      text: "Research caching and report back.",
      subtask: { agent: "scout", description: "Research a topic", command: "research" },
    })
    // The parent session keeps its own agent: the command's agent ran the child only.
    expect(transcript[0]).not.toHaveProperty("agent")
    expect(transcript[1]).toMatchObject({ agent: "build", finish: "stop" })
    expect(toolItems(transcript)).toMatchObject([
      {
        name: "task",
        state: {
          status: "completed",
          input: {
            description: "Research a topic",
            prompt: "Research caching and report back.",
            subagent_type: "scout",
          },
          content: [{ type: "text", text: "caching: use an LRU" }],
          structured: { sessionID: childID },
        },
      },
    ])
    const child = (await host.client.session.get({ sessionID: childID })).data!.data
    expect(child).toMatchObject({ parentID: parent.id, agent: "scout", location: parent.location })
    expect((await messages(host, childID)).map((m) => m.type)).toEqual(["user", "assistant"])
    expect((await host.client.session.list({ parentID: parent.id })).data!.data.map((s) => s.id)).toEqual([childID])
    expect((await host.client.session.get({ sessionID: parent.id })).data!.data.status).toBe("idle")

    // The next prompt is an ordinary turn of the parent's model, which sees the task call and its output.
    host.model.reply("noted")
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "thanks" } })
    await host.client.session.wait({ sessionID: parent.id })
    const next = host.model.requests[1]!
    expect(next.sessionID).toBe(parent.id)
    expect(JSON.stringify(next.messages)).toContain("caching: use an LRU")
  })

  it("without an agent runs under the built-in general subagent; a subtask command without it runs inline", async () => {
    const directory = realpathSync(tempDir())
    writeFileAt(join(directory, ".opencode/command/sweep.md"), "---\nsubtask: true\n---\nSweep $1")
    writeFileAt(join(directory, ".opencode/command/inline.md"), "---\nsubtask: false\n---\nInline $1")
    host = await createTestHost({ directory })
    const parent = await host.session()
    host.model.reply("swept", "inline answer")
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "/sweep docs" } })
    await host.client.session.wait({ sessionID: parent.id })
    expect(host.model.requests[0]!.agentID).toBe("general")
    const [call] = toolItems(await messages(host, parent.id))
    expect(call!.state).toMatchObject({
      status: "completed",
      input: { description: "/sweep", subagent_type: "general" },
    })

    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "/inline docs" } })
    await host.client.session.wait({ sessionID: parent.id })
    expect(host.model.requests[1]!.sessionID).toBe(parent.id)
    expect(toolItems(await messages(host, parent.id))).toHaveLength(1)
  })

  it("naming an unknown or primary-only subagent refuses the prompt with a typed 400, nothing stored", async () => {
    const directory = realpathSync(tempDir())
    writeFileAt(join(directory, ".opencode/command/ghost.md"), "---\nagent: ghost\nsubtask: true\n---\nHaunt $1")
    writeFileAt(join(directory, ".opencode/command/lead.md"), "---\nagent: lead\nsubtask: true\n---\nLead $1")
    host = await createTestHost({ directory, config: { agent: { lead: { mode: "primary" } } } })
    const parent = await host.session()
    for (const [text, message] of [
      ["/ghost x", 'command /ghost: unknown subagent "ghost"'],
      ["/lead x", 'command /lead: agent "lead" is a primary agent and cannot run as a subagent'],
    ] as const) {
      const refused = await host.client.session.prompt({ sessionID: parent.id, prompt: { text } })
      expect(refused.response?.status).toBe(400)
      expect(refused.error).toMatchObject({ _tag: "InvalidRequestError", field: "prompt.text", message })
    }
    expect(await messages(host, parent.id)).toEqual([])
    expect(host.model.requests).toHaveLength(0)
    expect((await host.client.session.list({ parentID: parent.id })).data!.data).toEqual([])
  })
})
