import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { ModelCall } from "../src/testing/index.ts"
import { createTestHost, type TestHost } from "../src/testing/index.ts"
import { runCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"
import { messagesOf, toolItems } from "./support/transcript.ts"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

const messages = (h: TestHost, sessionID: string) => messagesOf(h.client, sessionID, 200)

const taskCall = (input: Record<string, unknown>) => ({
  tools: [{ name: "task", input: { description: "look around", prompt: "list the files", ...input } }],
})

describe("subagents: the task tool", () => {
  it("runs the subagent in a child session with parentID and returns its final text as the call's output", async () => {
    host = await createTestHost({ config: { agent: { scout: { mode: "subagent", description: "finds things" } } } })
    const parent = await host.session()
    host.model.reply(taskCall({ subagent_type: "scout" }), "found: a.txt", "the scout found a.txt")
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "delegate" } })
    await host.client.session.wait({ sessionID: parent.id })

    const [first, child, last] = host.model.requests
    expect(first!.sessionID).toBe(parent.id)
    expect(first!.tools.map((t) => t.name)).toContain("task")
    expect(first!.tools.find((t) => t.name === "task")!.description).toContain("scout: finds things")
    expect(child!.agentID).toBe("scout")
    expect(child!.sessionID).not.toBe(parent.id)
    expect(last!.sessionID).toBe(parent.id)

    const [call] = toolItems(await messages(host, parent.id))
    expect(call!.state).toMatchObject({
      status: "completed",
      content: [{ type: "text", text: "found: a.txt" }],
      structured: { sessionID: child!.sessionID },
    })
    const info = (await host.client.session.get({ sessionID: child!.sessionID })).data!.data
    expect(info).toMatchObject({ parentID: parent.id, agent: "scout", location: parent.location })
    // The child's transcript is an ordinary session's: the prompt, the answer.
    const childMessages = await messages(host, child!.sessionID)
    expect(childMessages.map((m) => m.type)).toEqual(["user", "assistant"])
    expect(childMessages[0]).toMatchObject({ text: "list the files" })

    const children = (await host.client.session.list({ parentID: parent.id })).data!.data
    expect(children.map((s) => s.id)).toEqual([child!.sessionID])
    expect((await host.client.session.list({ parentID: child!.sessionID })).data!.data).toEqual([])
    const all = (await host.client.session.list({})).data!.data.map((s) => s.id)
    expect(all).toEqual(expect.arrayContaining([parent.id, child!.sessionID]))
    const bad = await host.client.session.list({ parentID: "nope" })
    expect(bad.response?.status).toBe(400)
    expect(bad.error).toMatchObject({ _tag: "InvalidRequestError", field: "parentID" })
  })

  it("an unknown or primary-only subagent fails the call naming it, and no child session is created", async () => {
    host = await createTestHost({ config: { agent: { planner: { mode: "primary" } } } })
    const parent = await host.session()
    host.model.reply(
      { tools: [{ name: "task", input: { description: "x", prompt: "y", subagent_type: "ghost" } }] },
      { tools: [{ name: "task", input: { description: "x", prompt: "y", subagent_type: "planner" } }] },
      "gave up",
    )
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "delegate" } })
    await host.client.session.wait({ sessionID: parent.id })
    const [ghost, planner] = toolItems(await messages(host, parent.id))
    expect(ghost!.state).toMatchObject({
      status: "error",
      error: { message: expect.stringContaining('unknown subagent "ghost"; available subagents: general') },
    })
    expect(planner!.state).toMatchObject({
      status: "error",
      error: { message: expect.stringContaining('"planner" is a primary agent') },
    })
    expect((await host.client.session.list({ parentID: parent.id })).data!.data).toEqual([])
    expect(host.model.requests.every((r) => r.sessionID === parent.id)).toBe(true)
  })

  it("agent.list shows modes and descriptions; a subagent-only agent cannot be chosen for a session or a prompt", async () => {
    host = await createTestHost({ config: { agent: { scout: { mode: "subagent", description: "finds things" } } } })
    const agents = (await host.client.agent.list()).data!.data
    expect(agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "build", mode: "primary" }),
        expect.objectContaining({ id: "general", mode: "subagent", description: expect.any(String) }),
        expect.objectContaining({ id: "scout", mode: "subagent", description: "finds things" }),
      ]),
    )
    const session = await host.session()
    const prompted = await host.client.session.prompt({ sessionID: session.id, prompt: { text: "hi" }, agent: "scout" })
    expect(prompted.response?.status).toBe(400)
    expect(prompted.error).toMatchObject({ _tag: "InvalidRequestError", field: "agent" })
    expect(JSON.stringify(prompted.error)).toContain("scout")
    const created = await host.client.session.create({ agent: "general", location: { directory: host.directory } })
    expect(created.response?.status).toBe(400)
    expect(created.error).toMatchObject({ _tag: "InvalidRequestError", field: "agent" })
    expect(await messages(host, session.id)).toEqual([])
  })

  it("interrupting the parent interrupts the child", async () => {
    host = await createTestHost()
    const parent = await host.session()
    let held: Promise<{ sessionID: string }> | undefined
    const reached = Promise.withResolvers<void>()
    // The parent's answer is the task call; armed once that answer is chosen, the hold catches the next
    // request, the child's.
    host.model.reply(() => {
      queueMicrotask(() => {
        held = host!.model.hold()
        reached.resolve()
      })
      return taskCall({ subagent_type: "general" })
    })
    host.model.reply("the child never finishes this")
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "delegate" } })
    await reached.promise
    const childCall = await held!
    expect(childCall.sessionID).not.toBe(parent.id)
    await host.client.session.interrupt({ sessionID: parent.id })
    await host.client.session.wait({ sessionID: parent.id })
    await host.client.session.wait({ sessionID: childCall.sessionID })
    const child = (await host.client.session.get({ sessionID: childCall.sessionID })).data!.data
    expect(child.status).toBe("idle")
    const [assistant] = (await messages(host, childCall.sessionID)).filter((m) => m.type === "assistant")
    expect(assistant).toMatchObject({ error: { name: "Interrupted" } })
    const [call] = toolItems(await messages(host, parent.id))
    expect(call!.state.status).toBe("error")
    host.model.release()
  })

  it("a permission ask inside the child is listed and answered from the parent's view over HTTP", async () => {
    host = await createTestHost()
    const parent = await host.session()
    const events = await host.events()
    host.model.reply(
      taskCall({ subagent_type: "general" }),
      { tools: [{ name: "write", input: { path: "out.txt", content: "from the child" } }] },
      "wrote out.txt",
      "the child wrote out.txt",
    )
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "delegate" } })
    let childID: string | undefined
    for await (const event of events) {
      if (event.type === "permission.v2.asked") {
        childID = event.data.sessionID
        break
      }
    }
    const listed = (await host.client.session.permission.list({ sessionID: parent.id })).data!.data
    expect(listed).toHaveLength(1)
    const ask = listed[0]!
    expect(ask.sessionID).not.toBe(parent.id)
    expect(ask.sessionID).toBe(childID)
    expect(ask).toMatchObject({ action: "edit", resources: ["out.txt"] })
    const got = await host.client.session.permission.get({ sessionID: parent.id, requestID: ask.id })
    expect(got.data!.data).toEqual(ask)
    // An unrelated session cannot answer it.
    const other = await host.session()
    const refused = await host.client.session.permission.reply({
      sessionID: other.id,
      requestID: ask.id,
      reply: "once",
    })
    expect(refused.response?.status).toBe(404)

    const replied = await host.client.session.permission.reply({
      sessionID: parent.id,
      requestID: ask.id,
      reply: "once",
    })
    expect(replied.response?.status).toBe(204)
    await host.client.session.wait({ sessionID: parent.id })
    const [call] = toolItems(await messages(host, parent.id))
    expect(call!.state).toMatchObject({ status: "completed", content: [{ type: "text", text: "wrote out.txt" }] })
    expect((await host.client.session.permission.list({ sessionID: parent.id })).data!.data).toEqual([])
    expect(readFileSync(`${host.directory}/out.txt`, "utf8")).toBe("from the child")
  })

  it("a graceful stop mid-child leaves both claims; the next start completes the call once", async () => {
    host = await createTestHost()
    const parent = await host.session()
    let held: Promise<{ sessionID: string }> | undefined
    const reached = Promise.withResolvers<void>()
    host.model.reply(() => {
      queueMicrotask(() => {
        held = host!.model.hold()
        reached.resolve()
      })
      return taskCall({ subagent_type: "general" })
    })
    host.model.reply("cut off by the stop")
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "delegate" } })
    await reached.promise
    const childID = (await held!).sessionID
    host.model.reply("the child's resumed answer", "parent done")
    await host.restart()
    await host.client.session.wait({ sessionID: parent.id })
    await host.client.session.wait({ sessionID: childID })
    const calls = toolItems(await messages(host, parent.id))
    expect(calls).toHaveLength(1)
    expect(calls[0]!.state).toMatchObject({
      status: "completed",
      content: [{ type: "text", text: "the child's resumed answer" }],
    })
    expect((await host.client.session.list({ parentID: parent.id })).data!.data).toHaveLength(1)
    expect(host.model.requests.filter((r) => r.sessionID === parent.id)).toHaveLength(2)
  })

  it("a child is an ordinary session: preflight and context see it under its subagent, and it is busy while it runs", async () => {
    const seen: Array<{ hook: string; sessionID: string; agentID: string }> = []
    host = await createTestHost({
      plugins: [
        {
          id: "watcher",
          setup: (ctx) => {
            ctx.session.hook("preflight", (event) => void seen.push({ hook: "preflight", ...pick(event) }))
            ctx.session.hook("context", (event) => void seen.push({ hook: "context", ...pick(event) }))
          },
        },
      ],
    })
    const parent = await host.session()
    let held: Promise<ModelCall> | undefined
    const reached = Promise.withResolvers<void>()
    host.model.reply(() => {
      queueMicrotask(() => {
        held = host!.model.hold()
        reached.resolve()
      })
      return taskCall({ subagent_type: "general" })
    })
    host.model.reply("child answer", "parent answer")
    await host.client.session.prompt({ sessionID: parent.id, prompt: { text: "delegate" } })
    await reached.promise
    const childID = (await held!).sessionID
    const [prompt] = await messages(host, childID)
    const busy = await host.client.session.retract({ sessionID: childID, messageID: prompt!.id })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID: childID })
    host.model.release()
    await host.client.session.wait({ sessionID: parent.id })
    expect(seen.filter((e) => e.sessionID === childID)).toEqual([
      { hook: "preflight", sessionID: childID, agentID: "general" },
      { hook: "context", sessionID: childID, agentID: "general" },
    ])
    expect(seen.filter((e) => e.sessionID === parent.id).map((e) => e.hook)).toEqual([
      "preflight",
      "context",
      "preflight",
      "context",
    ])
  })

  it("stress: concurrent parents each get their own child and their own child's answer, once", async () => {
    host = await createTestHost()
    const userText = (call: ModelCall) => {
      const user = call.messages.filter((m) => m.role === "user").at(-1)
      return user ? user.content.map((part) => part.text).join("") : ""
    }
    host.model.fallback((call) => {
      if (call.agentID === "general") return `child answer for ${userText(call)}`
      if (call.messages.at(-1)?.role === "tool") return "parent done"
      return taskCall({ subagent_type: "general", prompt: `report on ${userText(call)}` })
    })
    const parents = await Promise.all(Array.from({ length: 6 }, () => host!.session()))
    // Prompts sent in a shuffled order, all at once.
    const order = parents.map((p, i) => ({ p, key: (i * 7919) % 13 })).sort((a, b) => a.key - b.key)
    await Promise.all(
      order.map(({ p }) => host!.client.session.prompt({ sessionID: p.id, prompt: { text: `topic ${p.id}` } })),
    )
    await Promise.all(parents.map((p) => host!.client.session.wait({ sessionID: p.id })))
    for (const p of parents) {
      const children = (await host.client.session.list({ parentID: p.id })).data!.data
      expect(children).toHaveLength(1)
      const calls = toolItems(await messages(host, p.id))
      expect(calls).toHaveLength(1)
      expect(calls[0]!.state).toMatchObject({
        status: "completed",
        content: [{ type: "text", text: `child answer for report on topic ${p.id}` }],
        structured: { sessionID: children[0]!.id },
      })
    }
  })
})

describe("nested subagents", () => {
  it("a subagent may delegate in turn, three levels deep at most; the deepest call fails naming the bound", async () => {
    host = await createTestHost()
    host.model.fallback((call) =>
      call.messages.at(-1)?.role === "tool" ? `done at ${call.sessionID}` : taskCall({ subagent_type: "general" }),
    )
    const root = await host.session()
    await host.client.session.prompt({ sessionID: root.id, prompt: { text: "delegate all the way down" } })
    await host.client.session.wait({ sessionID: root.id })
    const chain = [root.id]
    for (;;) {
      const children = (await host.client.session.list({ parentID: chain.at(-1)! })).data!.data
      if (children.length === 0) break
      expect(children).toHaveLength(1)
      chain.push(children[0]!.id)
    }
    expect(chain).toHaveLength(4)
    const [deepest] = toolItems(await messages(host, chain[3]!))
    expect(deepest!.state).toMatchObject({
      status: "error",
      error: { message: expect.stringContaining("subagents nest at most 3 deep") },
    })
    const [top] = toolItems(await messages(host, root.id))
    expect(top!.state).toMatchObject({ status: "completed", content: [{ type: "text", text: `done at ${chain[1]}` }] })
  })
})

describe("subagents in opencode2 run", () => {
  it("answers a permission ask inside a task call's child (--yes) and prints the parent's answer", async () => {
    const cwd = tempDir()
    const write = `/tool write ${JSON.stringify({ path: "from-child.txt", content: "written by the child\n" })}`
    const task = `/tool task ${JSON.stringify({ description: "write it", prompt: write, subagent_type: "general" })}`
    const result = await runCli(["run", task, "--yes", "--db", join(cwd, "run.db")], { cwd })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("task returned: write returned")
    expect(existsSync(join(cwd, "from-child.txt"))).toBe(true)
    expect(readFileSync(join(cwd, "from-child.txt"), "utf8")).toBe("written by the child\n")
  })
})

const pick = (event: { sessionID: string; agentID: string }) => ({ sessionID: event.sessionID, agentID: event.agentID })
