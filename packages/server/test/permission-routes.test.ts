import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { LISTENING, readRest, readUntil, spawnCli } from "./support/cli.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { eventLog } from "./support/event-log.ts"
import { json, startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"
import { createOpencodeClient, type V2Event } from "@opencode-ai/sdk/v2"
import { toolItems } from "./support/transcript.ts"

let model: OpenAIServer
beforeAll(async () => {
  model = await startOpenAIServer()
})
afterAll(() => model.close())

type Asked = Extract<V2Event, { type: "permission.v2.asked" }>
const isAsked = (e: { type: string }) => e.type === "permission.v2.asked"

describe("permission routes", () => {
  it("an ask over the OpenAI-compatible provider: listed, SSE, 409 while pending, once applies, a second answer is 404", async () => {
    const t = await startTestServer({ config: localProviderConfig(model.url) })
    writeFileSync(join(t.directory, "a.txt"), "alpha\nbeta\n")
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const events = await eventLog(t.client, sessionID)
    model.enqueue(
      { toolCalls: [{ name: "edit", arguments: { path: "a.txt", oldString: "beta", newString: "gamma" } }] },
      { text: "edited" },
    )
    const { id: messageID } = (await t.api.session.prompt({ sessionID, prompt: { text: "change beta" } })).data!.data
    const asked = await events.next<Asked>(isAsked, "asked")
    const requestID = asked.data.id
    expect(requestID).toMatch(/^per_/)

    const list = await t.api.session.permission.list({ sessionID })
    const pending = {
      id: requestID,
      sessionID,
      action: "edit",
      resources: ["a.txt"],
      tool: "edit",
      title: "edit a.txt",
      metadata: { diff: expect.stringContaining("+gamma") },
      source: { type: "tool", messageID: expect.stringMatching(/^msg_/), callID: expect.any(String) },
    }
    expect(list.data!.data).toMatchObject([pending])
    expect((await t.api.session.permission.get({ sessionID, requestID })).data!.data).toEqual(list.data!.data[0])
    // Every session's pending requests at the location.
    expect((await t.api.permission.request.list()).data!.data).toMatchObject([pending])
    expect(readFileSync(join(t.directory, "a.txt"), "utf8")).toBe("alpha\nbeta\n")

    // The turn holds the claim while it waits.
    const busy = await t.fetch(`/api/session/${sessionID}/message/${messageID}`, json("PATCH", { text: "x" }))
    expect(busy.status).toBe(409)
    expect((await t.api.session.get({ sessionID })).data!.data.status).toBe("waiting")

    const bad = await t.fetch(
      `/api/session/${sessionID}/permission/${requestID}/reply`,
      json("POST", { reply: "sometimes" }),
    )
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ _tag: "InvalidRequestError", field: "reply" })
    const answered = await t.fetch(
      `/api/session/${sessionID}/permission/${requestID}/reply`,
      json("POST", { reply: "once" }),
    )
    expect(answered.status).toBe(204)
    const replied = await events.next(
      (e) => e.type === "permission.v2.replied" && (e.data as { requestID: string }).requestID === requestID,
      "replied",
    )
    expect(replied.data).toMatchObject({ requestID, reply: "once" })
    await t.api.session.wait({ sessionID })
    expect(readFileSync(join(t.directory, "a.txt"), "utf8")).toBe("alpha\ngamma\n")

    const again = await t.api.session.permission.reply({ sessionID, requestID, reply: "once" })
    expect(again.response?.status).toBe(404)
    expect(again.error).toMatchObject({ _tag: "PermissionNotFoundError", sessionID, requestID })
    const gone = await t.api.session.permission.get({ sessionID, requestID })
    expect(gone.error).toMatchObject({ _tag: "PermissionNotFoundError", requestID })
    const messages = (await t.api.session.messages({ sessionID })).data!.data
    expect(toolItems(messages)).toMatchObject([
      {
        id: asked.data.itemID,
        name: "edit",
        state: { status: "completed", structured: { diff: expect.stringContaining("-beta\n+gamma") } },
      },
    ])
    expect((await t.api.session.permission.list({ sessionID })).data!.data).toEqual([])
    expect((await t.api.permission.request.list()).data!.data).toEqual([])
    events.close()
  })

  it("reject over HTTP leaves the file and records the tool error; unknown sessions are 404", async () => {
    const t = await startTestServer()
    writeFileSync(join(t.directory, "a.txt"), "alpha\n")
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const events = await eventLog(t.client, sessionID)
    await t.api.session.prompt({
      sessionID,
      prompt: { text: `/tool write {"path":"a.txt","content":"overwritten"}` },
    })
    const asked = await events.next<Asked>(isAsked, "asked")
    const requestID = asked.data.id
    const rejected = await t.api.session.permission.reply({ sessionID, requestID, reply: "reject", message: "no" })
    expect(rejected.error).toBeUndefined()
    expect(rejected.response?.status).toBe(204)
    await t.api.session.wait({ sessionID })
    expect(readFileSync(join(t.directory, "a.txt"), "utf8")).toBe("alpha\n")
    const items = toolItems((await t.api.session.messages({ sessionID })).data!.data)
    expect(items).toMatchObject([
      { name: "write", state: { status: "error", error: { message: "the user rejected this call: no" } } },
    ])
    const missing = await t.api.session.permission.list({ sessionID: "ses_missing" })
    expect(missing.response?.status).toBe(404)
    expect(missing.error).toMatchObject({ _tag: "SessionNotFoundError" })
    const reply = await t.api.session.permission.reply({ sessionID: "ses_missing", requestID, reply: "once" })
    expect(reply.error).toMatchObject({ _tag: "SessionNotFoundError" })
    events.close()
  })
})

describe("a pending ask across a SIGKILL", () => {
  it("survives with the same id; answering once after the restart applies the edit exactly once", async () => {
    const cwd = tempDir()
    const work = join(cwd, "work")
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
      const client = createOpencodeClient({ baseUrl: match[1]! })
      return { child, client, api: client.v2 }
    }

    const first = await serve()
    const sessionID = (await first.api.session.create({ location: { directory: work } })).data!.data.id
    const events = await eventLog(first.client, sessionID)
    // Doubling "hello" twice would be visible: applied once gives exactly "hello hello".
    await first.api.session.prompt({
      sessionID,
      prompt: { text: `/tool edit {"path":"a.txt","oldString":"hello","newString":"hello hello"}` },
    })
    const asked = await events.next<Asked>(isAsked, "asked")
    const requestID = asked.data.id
    events.close()
    first.child.kill("SIGKILL")
    await first.child.exited

    const second = await serve()
    // The resumed turn waits for the same ask again.
    const pending = await second.api.session.permission.list({ sessionID })
    expect(pending.data!.data.map((p) => p.id)).toEqual([requestID])
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello\n")
    const mutation = await second.api.session.prune({ sessionID })
    expect(mutation.response?.status).toBe(409)

    const answered = await second.api.session.permission.reply({ sessionID, requestID, reply: "once" })
    expect(answered.response?.status).toBe(204)
    await second.api.session.wait({ sessionID })
    expect((await second.api.session.get({ sessionID })).data!.data.status).toBe("idle")
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello hello\n")
    const messages = (await second.api.session.messages({ sessionID })).data!.data
    // One tool call in the whole transcript: the stored call ran; the model was not asked to call it again.
    expect(toolItems(messages)).toMatchObject([
      {
        id: asked.data.itemID,
        name: "edit",
        state: { status: "completed", structured: { diff: expect.stringContaining("+hello hello") } },
      },
    ])
    second.child.kill("SIGTERM")
    await second.child.exited
  })
})
