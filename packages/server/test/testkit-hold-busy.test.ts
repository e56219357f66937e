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
    const first = (await host.client.session.prompt({ sessionID, prompt: { text: "remember this" } })).data!.data
    await host.client.session.wait({ sessionID })

    const held = host.model.hold()
    host.model.reply("second answer, held half way")
    await host.client.session.prompt({ sessionID, prompt: { text: "and now this" } })
    const call = await held
    expect(call.sessionID).toBe(sessionID)

    const busy = await host.client.session.retract({ sessionID, messageID: first.id })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID })
    await expect(ctx!.session.message.remove({ sessionID, messageID: first.id })).rejects.toMatchObject({
      _tag: "Session.BusyError",
      sessionID,
    })
    // Nothing changed while busy.
    const during = await host.client.session.message({ sessionID, messageID: first.id })
    expect(during.data?.data.retracted).toBeUndefined()

    host.model.release()
    await host.client.session.wait({ sessionID })
    const removed = await host.client.session.retract({ sessionID, messageID: first.id })
    expect(removed.error).toBeUndefined()
    expect(removed.data?.data).toMatchObject({ id: first.id, retracted: { by: "user" } })
    const { data } = await host.client.session.messages({ sessionID })
    expect(data!.data.at(-1)).toMatchObject({
      type: "assistant",
      content: [{ type: "text", text: "second answer, held half way" }],
    })
  })

  it("streams a held answer's first delta live before release", async () => {
    host = await createTestHost()
    const session = await host.session()
    const controller = new AbortController()
    const stream = await host.events({ sessionID: session.id, signal: controller.signal })
    const held = host.model.hold()
    host.model.reply({ text: "one two three four five six" })
    await host.client.session.prompt({ sessionID: session.id, prompt: { text: "count" } })
    await held
    let streamed = ""
    for await (const event of stream) {
      if (event.type === "session.next.text.delta") {
        streamed += event.data.delta
        break
      }
    }
    controller.abort()
    expect(streamed.length).toBeGreaterThan(0)
    expect("one two three four five six".startsWith(streamed)).toBe(true)
    const info = await host.client.session.get({ sessionID: session.id })
    expect(info.data?.data.status).toBe("busy")
    host.model.release()
    await host.client.session.wait({ sessionID: session.id })
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
    await host.client.session.prompt({ sessionID, prompt: { text: "read my notes" } })
    await host.client.session.wait({ sessionID })
    await host.client.session.prompt({ sessionID, prompt: { text: "again" } })
    await host.client.session.wait({ sessionID })

    expect(host.model.requests).toHaveLength(3)
    expect(host.model.requests[0]!.tools.map((tool) => tool.name)).toContain("read")
    const { data } = await host.client.session.messages({ sessionID })
    // One assistant message per model request: the tool step, then the answer to its result.
    const [, step, answer, , failed] = data!.data
    if (step?.type !== "assistant" || answer?.type !== "assistant") throw new Error("expected two answers")
    expect(step.content.map((item) => item.type)).toEqual(["reasoning", "text", "tool"])
    expect(step.content[2]).toMatchObject({ type: "tool", name: "read", state: { status: "completed" } })
    expect(answer.content).toMatchObject([{ type: "text", text: "the tool said alpha" }])
    expect(failed).toMatchObject({ type: "assistant", finish: "error" })
    expect(JSON.stringify(failed)).toContain("model overloaded")
  })

  it("loads a plugin given as a path relative to the working directory through the host's loader", async () => {
    host = await createTestHost({ plugins: ["./test/fixtures/guard.ts"] })
    const { data } = await host.client.plugin.list()
    expect(data?.data).toContainEqual(
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
                type: "text",
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
      await scoped.client.session.prompt({ sessionID, prompt: { text: "hi" } })
      await scoped.client.session.wait({ sessionID })
      expect(scoped.model.requests[0]!.system).toContainEqual({
        type: "text",
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
    const { data } = await host.client.session.prompt({ sessionID, prompt: { text: "mine" } })
    await host.client.session.wait({ sessionID })
    const target = { sessionID, messageID: data!.data.id }
    await expect(own!.session.message.remove(target)).rejects.toMatchObject({
      _tag: "Session.ForbiddenError",
      pluginID: "own",
    })
    await expect(any!.session.message.remove(target)).resolves.toMatchObject({ retracted: { by: "plugin:any" } })
    const { data: statuses } = await host.client.plugin.list()
    expect(statuses?.data).toContainEqual(expect.objectContaining({ id: "guard", status: "loaded" }))
  })

  it("refuses to start when a plugin fails to load", async () => {
    await expect(
      createTestHost({ plugins: [{ id: "broken", setup: () => Promise.reject(new Error("nope")) }] }),
    ).rejects.toThrow(/broken.*nope/)
  })
})
