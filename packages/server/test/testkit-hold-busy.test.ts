import type { EffectPlugin, PromisePlugin, PromisePluginContext } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

describe("test kit: model.hold() / release()", () => {
  it("a mutation while the answer is held is 409 SessionBusyError over HTTP and Session.BusyError in a plugin; after release it succeeds", async () => {
    let ctx: PromisePluginContext | undefined
    const exposer: PromisePlugin = { id: "exposer", setup: (given) => void (ctx = given) }
    host = await createTestHost({ plugins: [exposer] })
    const session = await host.session()
    const sessionID = session.id
    host.model.reply("first answer")
    const { data: first } = await host.client.session.prompt({ path: { sessionID }, body: { text: "remember this" } })
    await host.client.session.wait({ path: { sessionID } })

    const held = host.model.hold()
    host.model.reply("second answer, held half way")
    await host.client.session.prompt({ path: { sessionID }, body: { text: "and now this" } })
    const call = await held
    expect(call.sessionID).toBe(sessionID)

    const busy = await host.client.message.remove({ path: { sessionID, messageID: first!.messageID } })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID })
    await expect(ctx!.session.message.remove({ sessionID, messageID: first!.messageID })).rejects.toMatchObject({
      _tag: "Session.BusyError",
      sessionID,
    })
    // Nothing changed while busy.
    const during = await host.client.message.get({ path: { sessionID, messageID: first!.messageID } })
    expect(during.data?.retracted).toBeUndefined()

    host.model.release()
    await host.client.session.wait({ path: { sessionID } })
    const removed = await host.client.message.remove({ path: { sessionID, messageID: first!.messageID } })
    expect(removed.error).toBeUndefined()
    expect(removed.data).toMatchObject({ id: first!.messageID, retracted: { by: "user" } })
    const { data } = await host.client.message.list({ path: { sessionID } })
    expect(data!.items.at(-1)!.parts[0]).toMatchObject({ type: "text", text: "second answer, held half way" })
  })

  it("streams a held answer's first delta live before release", async () => {
    host = await createTestHost()
    const session = await host.session()
    const controller = new AbortController()
    const stream = await host.events({ sessionID: session.id, signal: controller.signal })
    const held = host.model.hold()
    host.model.reply({ text: "one two three four five six" })
    await host.client.session.prompt({ path: { sessionID: session.id }, body: { text: "count" } })
    await held
    let streamed = ""
    for await (const event of stream) {
      if (event.type === "session.part.delta") {
        streamed += (event.data as { delta: string }).delta
        break
      }
    }
    controller.abort()
    expect(streamed.length).toBeGreaterThan(0)
    expect("one two three four five six".startsWith(streamed)).toBe(true)
    const info = await host.client.session.get({ path: { sessionID: session.id } })
    expect(info.data?.status).toBe("busy")
    host.model.release()
    await host.client.session.wait({ path: { sessionID: session.id } })
  })
})

describe("test kit: scripted replies", () => {
  it("streams reasoning, text and tool calls, records errors on the turn, and records each request's tools and messages", async () => {
    host = await createTestHost()
    const session = await host.session()
    const sessionID = session.id
    await Bun.write(`${host.directory}/notes.txt`, "alpha\nbeta\n")
    host.model.reply(
      {
        reasoning: "I should look at the notes",
        text: "Reading.",
        tools: [{ name: "read", input: { path: "notes.txt" } }],
      },
      (request) =>
        `the tool said ${request.messages.some((message) => message.role === "tool" && JSON.stringify(message).includes("alpha")) ? "alpha" : "nothing"}`,
      { error: "model overloaded" },
    )
    await host.client.session.prompt({ path: { sessionID }, body: { text: "read my notes" } })
    await host.client.session.wait({ path: { sessionID } })
    await host.client.session.prompt({ path: { sessionID }, body: { text: "again" } })
    await host.client.session.wait({ path: { sessionID } })

    expect(host.model.requests).toHaveLength(3)
    expect(host.model.requests[0]!.tools.map((tool) => tool.name)).toContain("read")
    const { data } = await host.client.message.list({ path: { sessionID } })
    // One assistant message per model request: the tool step, then the answer to its result.
    const [, step, answer, , failed] = data!.items
    expect(step!.parts.map((part) => part.type)).toEqual(["reasoning", "text", "tool"])
    expect(step!.parts[2]).toMatchObject({ type: "tool", tool: "read", state: "completed" })
    expect(answer!.parts).toMatchObject([{ type: "text", text: "the tool said alpha" }])
    expect(failed).toMatchObject({ type: "assistant", finish: "error" })
    expect(JSON.stringify(failed)).toContain("model overloaded")
  })

  it("loads a plugin given as a path relative to the working directory through the host's loader", async () => {
    host = await createTestHost({ plugins: ["./test/fixtures/guard.ts"] })
    const { data } = await host.client.plugin.list()
    expect(data).toContainEqual(
      expect.objectContaining({ id: "guard", status: "loaded", source: `${process.cwd()}/test/fixtures/guard.ts` }),
    )
  })

  it("takes Effect-flavoured plugin objects too, and disposes with await using", async () => {
    const flavoured: EffectPlugin = {
      id: "flavoured",
      effect: (ctx) =>
        ctx.session.hook("context", (event) =>
          Effect.sync(
            () =>
              void event.system.push({
                id: "fx",
                text: "from an Effect plugin",
                origin: { type: "plugin", pluginID: "?" },
              }),
          ),
        ),
    }
    let url = ""
    {
      await using scoped = await createTestHost({ plugins: [flavoured] })
      url = scoped.url
      const { id: sessionID } = await scoped.session()
      await scoped.client.session.prompt({ path: { sessionID }, body: { text: "hi" } })
      await scoped.client.session.wait({ path: { sessionID } })
      expect(scoped.model.requests[0]!.system).toContainEqual({
        id: "fx",
        text: "from an Effect plugin",
        origin: { type: "plugin", pluginID: "flavoured" },
      })
    }
    await expect(fetch(`${url}/api/health`)).rejects.toThrow()
  })

  it("grants transcript rights per plugin, for objects and for paths", async () => {
    let own: PromisePluginContext | undefined
    let any: PromisePluginContext | undefined
    host = await createTestHost({
      plugins: [
        { id: "own", setup: (given) => void (own = given) },
        { plugin: { id: "any", setup: (given) => void (any = given) }, transcript: "any" },
        { plugin: "./test/fixtures/guard.ts", transcript: "any" },
      ],
    })
    const { id: sessionID } = await host.session()
    const { data } = await host.client.session.prompt({ path: { sessionID }, body: { text: "mine" } })
    await host.client.session.wait({ path: { sessionID } })
    const target = { sessionID, messageID: data!.messageID }
    await expect(own!.session.message.remove(target)).rejects.toMatchObject({
      _tag: "Session.ForbiddenError",
      pluginID: "own",
    })
    await expect(any!.session.message.remove(target)).resolves.toMatchObject({ retracted: { by: "plugin:any" } })
    const { data: statuses } = await host.client.plugin.list()
    expect(statuses).toContainEqual(expect.objectContaining({ id: "guard", status: "loaded" }))
  })

  it("refuses to start when a plugin fails to load", async () => {
    await expect(
      createTestHost({ plugins: [{ id: "broken", setup: () => Promise.reject(new Error("nope")) }] }),
    ).rejects.toThrow(/broken.*nope/)
  })
})
