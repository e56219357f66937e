import { createTestHost, type TestHost } from "@opencode-ai/server/testing"
import { afterEach, describe, expect, it } from "vitest"

let host: TestHost | undefined
afterEach(async () => {
  await host?.dispose()
  host = undefined
})

/** What a message says, without its ids and times: what a copy must keep. */
const content = (message: any) => ({
  type: message.type,
  text: message.text,
  origin: message.origin,
  summary: message.summary,
  retracted: message.retracted?.by,
  parts: message.content?.map((part: any) => ({ type: part.type, text: part.text })),
})

describe("POST /api/session/:id/fork", () => {
  it("copies the transcript up to and including the message into a new session: new ids, same directory, provenance and compaction kept, parentID set", async () => {
    host = await createTestHost()
    const original = await host.session({ title: "Original" })
    const sessionID = original.id
    const say = async (text: string, answer: string) => {
      host!.model.reply(answer)
      await host!.client.session.prompt({ sessionID, prompt: { text } })
      await host!.client.session.wait({ sessionID })
    }
    await say("one", "answer one")
    await host.client.session.synthetic({ sessionID, text: "a host notice", resume: false })
    const retracted = (await host.client.session.prompt({ sessionID, prompt: { text: "oops" }, resume: false })).data!
      .data
    await host.client.session.retract({ sessionID, messageID: retracted.id })
    await say("two", "answer two")
    host.model.reply("SUMMARY of one and two")
    await host.client.session.compact({ sessionID })
    await host.client.session.wait({ sessionID })
    await say("three", "answer three")
    const messages = (await host.client.session.messages({ sessionID })).data!.data
    expect(messages.map((m) => m.type)).toContain("compaction")

    // The whole transcript.
    const whole = (await host.client.session.fork({ sessionID })).data!.data
    expect(whole).toMatchObject({ parentID: sessionID, title: "Original (fork)", location: original.location })
    expect(whole.id).not.toBe(sessionID)
    const copied = (await host.client.session.messages({ sessionID: whole.id })).data!.data
    expect(copied.map(content)).toEqual(messages.map(content))
    expect(copied.find((m) => m.type === "synthetic")).toMatchObject({ origin: "host", text: "a host notice" })
    for (const message of copied) expect(messages.map((m) => m.id)).not.toContain(message.id)
    // The model is sent the same thing: the summary stands for the older messages in both.
    const context = async (id: string) => (await host!.client.session.context({ sessionID: id })).data!.data
    expect((await context(whole.id)).map(content)).toEqual((await context(sessionID)).map(content))

    // Up to the first answer only.
    const firstAnswer = messages.find((m) => m.type === "assistant")!
    const early = (await host.client.session.fork({ sessionID, messageID: firstAnswer.id })).data!.data
    const head = (await host.client.session.messages({ sessionID: early.id })).data!.data
    expect(head.map(content)).toEqual(messages.slice(0, 2).map(content))

    // The fork goes on by itself; the original is unchanged.
    host.model.reply("forked answer")
    await host.client.session.prompt({ sessionID: early.id, prompt: { text: "after the fork" } })
    await host.client.session.wait({ sessionID: early.id })
    const request = host.model.requests.at(-1)!
    expect(request.sessionID).toBe(early.id)
    expect(request.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
    expect((await host.client.session.messages({ sessionID })).data!.data).toEqual(messages)
  })

  it("is a typed 404 for a message of another session or a missing one, 404 for a missing session, 400 for a bad body", async () => {
    host = await createTestHost()
    const a = await host.session()
    const b = await host.session()
    host.model.reply("in b")
    const inB = (await host.client.session.prompt({ sessionID: b.id, prompt: { text: "b" } })).data!.data
    await host.client.session.wait({ sessionID: b.id })
    const before = (await host.client.session.list({})).data!.data.length

    const foreign = await host.client.session.fork({ sessionID: a.id, messageID: inB.id })
    expect(foreign.response?.status).toBe(404)
    expect(foreign.error).toMatchObject({ _tag: "MessageNotFoundError", sessionID: a.id, messageID: inB.id })
    const gone = await host.client.session.fork({ sessionID: a.id, messageID: "msg_missing" })
    expect(gone.response?.status).toBe(404)
    expect(gone.error).toMatchObject({ _tag: "MessageNotFoundError" })
    const noSession = await host.client.session.fork({ sessionID: "ses_missing" })
    expect(noSession.response?.status).toBe(404)
    expect(noSession.error).toMatchObject({ _tag: "SessionNotFoundError", sessionID: "ses_missing" })
    const bad = await fetch(`${host.url}/api/session/${b.id}/fork`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messageID: 42 }),
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ _tag: "InvalidRequestError" })
    // Nothing was created by a refusal.
    expect((await host.client.session.list({})).data!.data).toHaveLength(before)
  })

  it("refuses with 409 a range holding an answer still being written; an earlier message forks meanwhile", async () => {
    host = await createTestHost()
    const session = await host.session()
    const sessionID = session.id
    host.model.reply("settled")
    const first = (await host.client.session.prompt({ sessionID, prompt: { text: "first" } })).data!.data
    await host.client.session.wait({ sessionID })
    const held = host.model.hold()
    host.model.reply("still streaming")
    await host.client.session.prompt({ sessionID, prompt: { text: "second" } })
    await held

    const busy = await host.client.session.fork({ sessionID })
    expect(busy.response?.status).toBe(409)
    expect(busy.error).toMatchObject({ _tag: "SessionBusyError", sessionID })
    const early = await host.client.session.fork({ sessionID, messageID: first.id })
    expect(early.error).toBeUndefined()
    const copied = (await host.client.session.messages({ sessionID: early.data!.data.id })).data!.data
    expect(copied.map((m) => m.type)).toEqual(["user"])

    host.model.release()
    await host.client.session.wait({ sessionID })
  })
})
