import type { AssistantMessage, Message, OpencodeClient, ToolPart } from "@opencode-ai/sdk"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { startTestServer } from "./support/server.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"

/** A session with one offline turn: user prompt, assistant (reasoning + tool), assistant (final text). */
const withTurn = async (client: OpencodeClient) => {
  const session = (await client.session.create({ body: {} })).data!
  const prompt = (
    await client.session.prompt({ path: { sessionID: session.id }, body: { text: "/think hi\n/tool list {}" } })
  ).data!
  await client.session.wait({ path: { sessionID: session.id } })
  const items = (await client.message.list({ path: { sessionID: session.id } })).data!.items
  const [user, first, second] = items as [Message, AssistantMessage, AssistantMessage]
  return { sessionID: session.id, promptID: prompt.messageID, user, first, second }
}

describe("message routes and the mutation contract over the SDK", () => {
  it("lists messages in both orders with a cursor, and gets one", async () => {
    const { client } = await startTestServer()
    const { sessionID, user, first, second } = await withTurn(client)
    expect(first.parts.map((p) => p.type)).toEqual(["reasoning", "tool"])
    const desc = (await client.message.list({ path: { sessionID }, query: { order: "desc", limit: 2 } })).data!
    expect(desc.items.map((m) => m.id)).toEqual([second.id, first.id])
    expect(desc.cursor).toBe(String(first.seq))
    const rest = (await client.message.list({ path: { sessionID }, query: { order: "desc", cursor: desc.cursor! } }))
      .data!
    expect(rest).toEqual({ items: [user] })
    const asc = (await client.message.list({ path: { sessionID }, query: { order: "asc", limit: 1 } })).data!
    expect(asc.items.map((m) => m.id)).toEqual([user.id])
    expect((await client.message.get({ path: { sessionID, messageID: first.id } })).data).toEqual(first)
  })

  it("answers 404 MessageNotFoundError for an unknown message, on reads and every mutation", async () => {
    const { client } = await startTestServer()
    const { sessionID } = await withTurn(client)
    const path = { sessionID, messageID: "msg_missing" }
    const body = { _tag: "MessageNotFoundError", sessionID, messageID: "msg_missing", message: expect.any(String) }
    const results = await Promise.all([
      client.message.get({ path }),
      client.message.update({ path: { ...path, partID: "prt_x" }, body: { text: "x" } }),
      client.message.remove({ path }),
      client.part.remove({ path: { ...path, partID: "prt_x" } }),
    ])
    for (const result of results) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual(body)
    }
  })

  it("answers 404 SessionNotFoundError for mutations in an unknown session", async () => {
    const { client } = await startTestServer()
    const path = { sessionID: "ses_missing", messageID: "msg_x", partID: "prt_x" }
    const body = { _tag: "SessionNotFoundError", sessionID: "ses_missing", message: expect.any(String) }
    for (const result of [
      await client.message.update({ path, body: { text: "x" } }),
      await client.message.remove({ path }),
      await client.part.remove({ path }),
    ]) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual(body)
    }
  })

  it("corrects a text part and returns the updated message", async () => {
    const { client } = await startTestServer()
    const { sessionID, user, second } = await withTurn(client)
    const part = user.parts[0]!
    const corrected = await client.message.update({
      path: { sessionID, messageID: user.id, partID: part.id },
      body: { text: "a corrected prompt" },
    })
    expect(corrected.error).toBeUndefined()
    expect(corrected.data).toEqual({ ...user, parts: [{ ...part, text: "a corrected prompt" }] })
    expect((await client.message.get({ path: { sessionID, messageID: user.id } })).data).toEqual(corrected.data)

    const answer = second.parts[0]!
    const assistant = await client.message.update({
      path: { sessionID, messageID: second.id, partID: answer.id },
      body: { text: "edited answer" },
    })
    expect(assistant.data!.parts).toEqual([{ ...answer, text: "edited answer" }])
  })

  it("retracts a user message behind the host placeholder, keeping id, seq and origin", async () => {
    const { client } = await startTestServer()
    const { sessionID, user } = await withTurn(client)
    const retracted = await client.message.remove({ path: { sessionID, messageID: user.id } })
    expect(retracted.error).toBeUndefined()
    expect(retracted.data).toMatchObject({
      id: user.id,
      seq: user.seq,
      type: "user",
      origin: "user",
      parts: [],
      placeholder: expect.any(String),
      retracted: { time: expect.any(Number), by: "user" },
    })
    // Retracting again is harmless and answers the same message.
    const again = await client.message.remove({ path: { sessionID, messageID: user.id } })
    expect(again.data).toEqual(retracted.data)
  })

  it("removes reasoning and tool parts of a completed assistant message", async () => {
    const { client } = await startTestServer()
    const { sessionID, first } = await withTurn(client)
    const [reasoning, tool] = first.parts as [Message["parts"][number], ToolPart]
    const afterReasoning = await client.part.remove({ path: { sessionID, messageID: first.id, partID: reasoning.id } })
    expect(afterReasoning.error).toBeUndefined()
    expect(afterReasoning.data!.parts).toEqual([tool])
    const afterTool = await client.part.remove({ path: { sessionID, messageID: first.id, partID: tool.id } })
    expect(afterTool.data).toMatchObject({ id: first.id, seq: first.seq, parts: [] })
  })

  it("answers 404 PartNotFoundError and 400 InvalidTargetError for parts that do not qualify", async () => {
    const { client } = await startTestServer()
    const { sessionID, user, first, second } = await withTurn(client)
    const missingPart = await client.part.remove({ path: { sessionID, messageID: first.id, partID: "prt_missing" } })
    expect(missingPart.response?.status).toBe(404)
    expect(missingPart.error).toEqual({
      _tag: "PartNotFoundError",
      sessionID,
      messageID: first.id,
      partID: "prt_missing",
      message: expect.any(String),
    })
    const missingText = await client.message.update({
      path: { sessionID, messageID: user.id, partID: "prt_missing" },
      body: { text: "x" },
    })
    expect(missingText.error).toMatchObject({ _tag: "PartNotFoundError", partID: "prt_missing" })

    const invalid = (messageID: string, partID: string | undefined) => ({
      _tag: "InvalidTargetError",
      sessionID,
      messageID,
      ...(partID ? { partID } : {}),
      reason: expect.any(String),
      message: expect.any(String),
    })
    const tool = first.parts[1]!
    const correctTool = await client.message.update({
      path: { sessionID, messageID: first.id, partID: tool.id },
      body: { text: "x" },
    })
    expect(correctTool.response?.status).toBe(400)
    expect(correctTool.error).toEqual(invalid(first.id, tool.id))
    const retractAssistant = await client.message.remove({ path: { sessionID, messageID: second.id } })
    expect(retractAssistant.response?.status).toBe(400)
    expect(retractAssistant.error).toEqual(invalid(second.id, undefined))
    const removeText = await client.part.remove({
      path: { sessionID, messageID: second.id, partID: second.parts[0]!.id },
    })
    expect(removeText.response?.status).toBe(400)
    expect(removeText.error).toEqual(invalid(second.id, second.parts[0]!.id))
    const removeFromUser = await client.part.remove({
      path: { sessionID, messageID: user.id, partID: user.parts[0]!.id },
    })
    expect(removeFromUser.error).toEqual(invalid(user.id, user.parts[0]!.id))
  })

  it("refuses mutations and resume with 409 SessionBusyError while a turn runs, and accepts them after", async () => {
    const model = await startOpenAIServer()
    try {
      const { client } = await startTestServer({
        config: localProviderConfig(model.url),
      })
      const session = (await client.session.create({ body: {} })).data!
      const sessionID = session.id
      model.enqueue({ text: "first answer" })
      const first = (await client.session.prompt({ path: { sessionID }, body: { text: "first" } })).data!
      await client.session.wait({ path: { sessionID } })
      const user = (await client.message.get({ path: { sessionID, messageID: first.messageID } })).data!

      model.enqueue({ text: "held answer", hold: true })
      await client.session.prompt({ path: { sessionID }, body: { text: "second" } })
      await model.held()
      expect((await client.session.get({ path: { sessionID } })).data!.status).toBe("busy")

      const busy = { _tag: "SessionBusyError", sessionID, message: expect.any(String) }
      const results = [
        await client.message.update({
          path: { sessionID, messageID: user.id, partID: user.parts[0]!.id },
          body: { text: "x" },
        }),
        await client.message.remove({ path: { sessionID, messageID: user.id } }),
        await client.part.remove({ path: { sessionID, messageID: user.id, partID: user.parts[0]!.id } }),
        await client.session.resume({ path: { sessionID } }),
      ]
      for (const result of results) {
        expect(result.response?.status).toBe(409)
        expect(result.error).toEqual(busy)
      }
      // Nothing changed.
      expect((await client.message.get({ path: { sessionID, messageID: user.id } })).data).toEqual(user)

      model.release()
      await client.session.wait({ path: { sessionID } })
      const retracted = await client.message.remove({ path: { sessionID, messageID: user.id } })
      expect(retracted.data).toMatchObject({ id: user.id, retracted: { by: "user" } })
    } finally {
      await model.close()
    }
  })

  it("interrupts a running turn", async () => {
    const model = await startOpenAIServer()
    try {
      const { client } = await startTestServer({
        config: localProviderConfig(model.url),
      })
      const sessionID = (await client.session.create({ body: {} })).data!.id
      model.enqueue({ text: "never finished", hold: true })
      await client.session.prompt({ path: { sessionID }, body: { text: "go" } })
      await model.held()
      const interrupted = await client.session.interrupt({ path: { sessionID } })
      expect(interrupted.response?.status).toBe(204)
      const after = (await client.session.wait({ path: { sessionID } })).data!
      expect(after.status).toBe("idle")
    } finally {
      await model.close()
    }
  })
})
