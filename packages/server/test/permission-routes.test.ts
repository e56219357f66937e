import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { LISTENING, readRest, readUntil, spawnCli } from "./support/cli.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { subscribe } from "./support/e2e-events.ts"
import { json, startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"
import { createOpencodeClient, type Message } from "@opencode-ai/sdk"

let model: OpenAIServer
beforeAll(async () => {
  model = await startOpenAIServer()
})
afterAll(() => model.close())

const toolParts = (messages: ReadonlyArray<Message>) =>
  messages.flatMap((m) => m.parts.filter((p) => p.type === "tool"))

describe("permission routes", () => {
  it("an ask over the OpenAI-compatible provider: listed, SSE, 409 while pending, once applies, a second answer is 404", async () => {
    const t = await startTestServer({ config: localProviderConfig(model.url) })
    writeFileSync(join(t.directory, "a.txt"), "alpha\nbeta\n")
    const sessionID = (await t.client.session.create({ body: { directory: t.directory } })).data!.id
    const events = await subscribe(t.client, sessionID)
    model.enqueue(
      { toolCalls: [{ name: "edit", arguments: { path: "a.txt", oldString: "beta", newString: "gamma" } }] },
      { text: "edited" },
    )
    const { messageID } = (await t.client.session.prompt({ path: { sessionID }, body: { text: "change beta" } })).data!
    const asked = await events.next((e) => e.type === "session.permission.asked", "asked")
    const permissionID = (asked.data as { permissionID: string }).permissionID
    expect(permissionID).toMatch(/^per_/)

    const list = await t.client.permission.list({ path: { sessionID } })
    expect(list.data!.items).toMatchObject([
      {
        id: permissionID,
        sessionID,
        tool: "edit",
        title: "edit a.txt",
        patterns: ["a.txt"],
        metadata: { diff: expect.stringContaining("+gamma") },
      },
    ])
    expect(readFileSync(join(t.directory, "a.txt"), "utf8")).toBe("alpha\nbeta\n")

    // The turn holds the claim while it waits.
    const prompt = (await t.client.message.get({ path: { sessionID, messageID } })).data!
    const busy = await t.fetch(
      `/api/session/${sessionID}/message/${messageID}/part/${prompt.parts[0]!.id}`,
      json("PATCH", { text: "x" }),
    )
    expect(busy.status).toBe(409)
    expect((await t.client.session.get({ path: { sessionID } })).data!.status).toBe("busy")

    const bad = await t.fetch(
      `/api/session/${sessionID}/permission/${permissionID}`,
      json("POST", { reply: "sometimes" }),
    )
    expect(bad.status).toBe(400)
    const answered = await t.fetch(
      `/api/session/${sessionID}/permission/${permissionID}`,
      json("POST", { reply: "once" }),
    )
    expect(answered.status).toBe(200)
    expect(await answered.json()).toEqual({ id: permissionID, reply: "once" })
    await events.next((e) => e.type === "session.permission.replied", "replied")
    await t.client.session.wait({ path: { sessionID } })
    expect(readFileSync(join(t.directory, "a.txt"), "utf8")).toBe("alpha\ngamma\n")

    const again = await t.client.permission.reply({ path: { sessionID, permissionID }, body: { reply: "once" } })
    expect(again.response?.status).toBe(404)
    expect(again.error).toMatchObject({ _tag: "PermissionNotFoundError", sessionID, permissionID })
    const messages = (await t.client.message.list({ path: { sessionID } })).data!.items
    expect(toolParts(messages)).toMatchObject([
      { tool: "edit", state: "completed", metadata: { diff: expect.stringContaining("-beta\n+gamma") } },
    ])
    expect((await t.client.permission.list({ path: { sessionID } })).data!.items).toEqual([])
    events.close()
  })

  it("reject over HTTP leaves the file and records the tool error; unknown sessions are 404", async () => {
    const t = await startTestServer()
    writeFileSync(join(t.directory, "a.txt"), "alpha\n")
    const sessionID = (await t.client.session.create({ body: { directory: t.directory } })).data!.id
    const events = await subscribe(t.client, sessionID)
    await t.client.session.prompt({
      path: { sessionID },
      body: { text: `/tool write {"path":"a.txt","content":"overwritten"}` },
    })
    const asked = await events.next((e) => e.type === "session.permission.asked", "asked")
    const permissionID = (asked.data as { permissionID: string }).permissionID
    const rejected = await t.client.permission.reply({
      path: { sessionID, permissionID },
      body: { reply: "reject", message: "no" },
    })
    expect(rejected.data).toEqual({ id: permissionID, reply: "reject" })
    await t.client.session.wait({ path: { sessionID } })
    expect(readFileSync(join(t.directory, "a.txt"), "utf8")).toBe("alpha\n")
    const parts = toolParts((await t.client.message.list({ path: { sessionID } })).data!.items)
    expect(parts).toMatchObject([{ state: "error", error: "the user rejected this call: no" }])
    const missing = await t.client.permission.list({ path: { sessionID: "ses_missing" } })
    expect(missing.error).toMatchObject({ _tag: "SessionNotFoundError" })
    events.close()
  })
})

describe("a pending ask across a SIGKILL", () => {
  it("survives with the same id; answering once after the restart applies the edit exactly once", async () => {
    const cwd = tempDir()
    const work = join(cwd, "work")
    const { mkdirSync } = await import("node:fs")
    mkdirSync(work)
    writeFileSync(join(work, "a.txt"), "hello\n")
    const config = join(cwd, "opencode.json")
    writeFileSync(config, JSON.stringify({}))
    const db = join(cwd, "kill.db")
    const env = { OPENCODE_CONFIG: config }
    const serve = async () => {
      const child = spawnCli(["serve", "--port", "0", "--db", db], { cwd, env })
      const { text, reader } = await readUntil(child.stdout, (out) => LISTENING.test(out))
      const match = LISTENING.exec(text)
      if (!match) throw new Error(`serve exited (${await child.exited}): ${await new Response(child.stderr).text()}`)
      void readRest(reader)
      return { child, client: createOpencodeClient({ baseUrl: match[1]! }) }
    }

    const first = await serve()
    const sessionID = (await first.client.session.create({ body: { directory: work } })).data!.id
    const events = await subscribe(first.client, sessionID)
    // Doubling "hello" twice would be visible: applied once gives exactly "hello hello".
    await first.client.session.prompt({
      path: { sessionID },
      body: { text: `/tool edit {"path":"a.txt","oldString":"hello","newString":"hello hello"}` },
    })
    const asked = await events.next((e) => e.type === "session.permission.asked", "asked")
    const permissionID = (asked.data as { permissionID: string }).permissionID
    events.close()
    first.child.kill("SIGKILL")
    await first.child.exited

    const second = await serve()
    // The resumed turn waits for the same ask again.
    const pending = await second.client.permission.list({ path: { sessionID } })
    expect(pending.data!.items.map((p) => p.id)).toEqual([permissionID])
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello\n")
    const mutation = await second.client.session.prune({ path: { sessionID }, body: {} })
    expect(mutation.response?.status).toBe(409)

    const answered = await second.client.permission.reply({
      path: { sessionID, permissionID },
      body: { reply: "once" },
    })
    expect(answered.data).toEqual({ id: permissionID, reply: "once" })
    const after = (await second.client.session.wait({ path: { sessionID } })).data!
    expect(after.status).toBe("idle")
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello hello\n")
    const messages = (await second.client.message.list({ path: { sessionID } })).data!.items
    // One tool call in the whole transcript: the stored call ran; the model was not asked to call it again.
    expect(toolParts(messages)).toMatchObject([
      { tool: "edit", state: "completed", metadata: { diff: expect.stringContaining("+hello hello") } },
    ])
    second.child.kill("SIGTERM")
    await second.child.exited
  })
})
