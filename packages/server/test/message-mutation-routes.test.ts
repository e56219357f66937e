import type {
  OpencodeClient,
  SessionMessage,
  SessionMessageAssistant,
  SessionMessageAssistantTool,
  SessionMessageUser,
} from "@opencode-ai/sdk/v2"
import { describe, expect, it } from "vitest"
import { startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { startTestServer } from "./support/server.ts"
import { localProviderConfig } from "./support/e2e-setup.ts"
import { finishedTurn, messagesOf } from "./support/transcript.ts"

type Api = OpencodeClient["v2"]

/** A session with one offline turn: user prompt, assistant (reasoning + tool), assistant (final text). */
const withTurn = async (api: Api) => {
  const { sessionID, promptID } = await finishedTurn(api, "/think hi\n/tool list {}")
  const items = await messagesOf(api, sessionID)
  const [user, first, second] = items as [SessionMessageUser, SessionMessageAssistant, SessionMessageAssistant]
  return { sessionID, promptID, user, first, second }
}

describe("message routes and the mutation contract over the SDK", () => {
  it("lists messages in both orders with cursors, and gets one", async () => {
    const { api } = await startTestServer()
    const { sessionID, promptID, user, first, second } = await withTurn(api)
    expect(user.id).toBe(promptID)
    expect(first.content.map((item) => item.type)).toEqual(["reasoning", "tool"])
    expect(second.content.map((item) => item.type)).toEqual(["text"])
    expect([user.seq < first.seq, first.seq < second.seq]).toEqual([true, true])

    const desc = (await api.session.messages({ sessionID, order: "desc", limit: 2 })).data!
    expect(desc.data.map((m) => m.id)).toEqual([second.id, first.id])
    expect(desc.cursor.previous).toBeUndefined()
    const rest = (await api.session.messages({ sessionID, order: "desc", cursor: desc.cursor.next! })).data!
    expect(rest.data).toEqual([user])
    expect(rest.cursor.next).toBeUndefined()
    // The previous cursor goes back to the page before.
    const back = (await api.session.messages({ sessionID, order: "desc", cursor: rest.cursor.previous! })).data!
    expect(back.data.map((m) => m.id)).toEqual([second.id, first.id])

    const asc = (await api.session.messages({ sessionID, order: "asc", limit: 1 })).data!
    expect(asc.data.map((m) => m.id)).toEqual([user.id])
    const ascRest = (await api.session.messages({ sessionID, order: "asc", cursor: asc.cursor.next! })).data!
    expect(ascRest.data.map((m) => m.id)).toEqual([first.id, second.id])
    // The default is ascending, everything fits one page and no cursor follows.
    const whole = (await api.session.messages({ sessionID })).data!
    expect(whole).toEqual({ data: [user, first, second], cursor: {} })
    expect((await api.session.message({ sessionID, messageID: first.id })).data!.data).toEqual(first)
  })

  it("answers 404 MessageNotFoundError for an unknown message, on reads and every mutation", async () => {
    const { api } = await startTestServer()
    const { sessionID } = await withTurn(api)
    const path = { sessionID, messageID: "msg_missing" }
    const body = { _tag: "MessageNotFoundError", sessionID, messageID: "msg_missing", message: expect.any(String) }
    const results = await Promise.all([
      api.session.message(path),
      api.session.correct({ ...path, text: "x" }),
      api.session.correct({ ...path, itemID: "prt_x", text: "x" }),
      api.session.retract(path),
      api.session.removeItem({ ...path, itemID: "prt_x" }),
    ])
    for (const result of results) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual(body)
    }
  })

  it("answers 404 SessionNotFoundError for mutations in an unknown session", async () => {
    const { api } = await startTestServer()
    const path = { sessionID: "ses_missing", messageID: "msg_x" }
    const body = { _tag: "SessionNotFoundError", sessionID: "ses_missing", message: expect.any(String) }
    for (const result of [
      await api.session.message(path),
      await api.session.messages({ sessionID: "ses_missing" }),
      await api.session.correct({ ...path, text: "x" }),
      await api.session.retract(path),
      await api.session.removeItem({ ...path, itemID: "prt_x" }),
    ]) {
      expect(result.response?.status).toBe(404)
      expect(result.error).toEqual(body)
    }
  })

  it("corrects a user message's text and an assistant text item, and returns the updated message", async () => {
    const { api } = await startTestServer()
    const { sessionID, user, second } = await withTurn(api)
    const corrected = await api.session.correct({ sessionID, messageID: user.id, text: "a corrected prompt" })
    expect(corrected.error).toBeUndefined()
    expect(corrected.data!.data).toEqual({
      ...user,
      text: "a corrected prompt",
      corrected: { time: expect.any(Number), by: "user" },
    })
    expect((await api.session.message({ sessionID, messageID: user.id })).data!.data).toEqual(corrected.data!.data)

    const answer = second.content[0]!
    const assistant = await api.session.correct({
      sessionID,
      messageID: second.id,
      itemID: answer.id,
      text: "edited answer",
    })
    expect(assistant.error).toBeUndefined()
    expect((assistant.data!.data as SessionMessageAssistant).content).toEqual([
      { ...answer, text: "edited answer", corrected: { time: expect.any(Number), by: "user" } },
    ])
    // Ids, seq and role never change.
    expect(assistant.data!.data).toMatchObject({ id: second.id, seq: second.seq, type: "assistant" })
  })

  it("retracts a user message behind the host placeholder, keeping id, seq and origin", async () => {
    const { api } = await startTestServer()
    const { sessionID, user } = await withTurn(api)
    const retracted = await api.session.retract({ sessionID, messageID: user.id })
    expect(retracted.error).toBeUndefined()
    expect(retracted.data!.data).toMatchObject({
      id: user.id,
      seq: user.seq,
      type: "user",
      origin: "user",
      placeholder: expect.any(String),
      retracted: { time: expect.any(Number), by: "user" },
    })
    // The content is gone.
    expect(JSON.stringify(retracted.data)).not.toContain(user.text)
    // Retracting again is harmless and answers the same message.
    const again = await api.session.retract({ sessionID, messageID: user.id })
    expect(again.data).toEqual(retracted.data)
  })

  it("removes the reasoning item and prunes the tool call of a completed assistant message", async () => {
    const { api } = await startTestServer()
    const { sessionID, first } = await withTurn(api)
    const [reasoning, tool] = first.content as [SessionMessageAssistant["content"][number], SessionMessageAssistantTool]
    const afterReasoning = await api.session.removeItem({ sessionID, messageID: first.id, itemID: reasoning.id })
    expect(afterReasoning.error).toBeUndefined()
    expect(afterReasoning.data!.data).toMatchObject({ id: first.id, content: [tool], removed: [reasoning.id] })
    const afterTool = await api.session.removeItem({ sessionID, messageID: first.id, itemID: tool.id })
    expect(afterTool.error).toBeUndefined()
    const pruned = (afterTool.data!.data as SessionMessageAssistant).content
    expect(afterTool.data!.data).toMatchObject({ id: first.id, seq: first.seq })
    expect(pruned).toHaveLength(1)
    expect(pruned[0]).toMatchObject({
      type: "tool",
      id: tool.id,
      callID: tool.callID,
      name: "list",
      prunedBy: "user",
      time: { pruned: expect.any(Number) },
    })
    // The call's output is gone.
    expect(JSON.stringify(pruned)).not.toContain("opencode.db")
    // A repeated removal answers with the message, unchanged.
    const again = await api.session.removeItem({ sessionID, messageID: first.id, itemID: tool.id })
    expect(again.data).toEqual(afterTool.data)
    const againReasoning = await api.session.removeItem({ sessionID, messageID: first.id, itemID: reasoning.id })
    expect(againReasoning.data).toEqual(afterTool.data)
  })

  it("answers 404 ItemNotFoundError and 400 InvalidTargetError for items that do not qualify", async () => {
    const { api } = await startTestServer()
    const { sessionID, user, first, second } = await withTurn(api)
    const missingItem = await api.session.removeItem({ sessionID, messageID: first.id, itemID: "prt_missing" })
    expect(missingItem.response?.status).toBe(404)
    expect(missingItem.error).toEqual({
      _tag: "ItemNotFoundError",
      sessionID,
      messageID: first.id,
      itemID: "prt_missing",
      message: expect.any(String),
    })
    const missingText = await api.session.correct({
      sessionID,
      messageID: second.id,
      itemID: "prt_missing",
      text: "x",
    })
    expect(missingText.response?.status).toBe(404)
    expect(missingText.error).toMatchObject({ _tag: "ItemNotFoundError", itemID: "prt_missing" })

    const invalid = (messageID: string, itemID: string | undefined) => ({
      _tag: "InvalidTargetError",
      sessionID,
      messageID,
      ...(itemID ? { itemID } : {}),
      reason: expect.any(String),
      message: expect.any(String),
    })
    const tool = first.content[1]!
    const correctTool = await api.session.correct({ sessionID, messageID: first.id, itemID: tool.id, text: "x" })
    expect(correctTool.response?.status).toBe(400)
    expect(correctTool.error).toEqual(invalid(first.id, tool.id))
    // An assistant message's text is in its items: the item must be named.
    const correctWhole = await api.session.correct({ sessionID, messageID: second.id, text: "x" })
    expect(correctWhole.error).toEqual(invalid(second.id, undefined))
    // A user message has no items.
    const correctUserItem = await api.session.correct({ sessionID, messageID: user.id, itemID: tool.id, text: "x" })
    expect(correctUserItem.error).toEqual(invalid(user.id, tool.id))
    const retractAssistant = await api.session.retract({ sessionID, messageID: second.id })
    expect(retractAssistant.response?.status).toBe(400)
    expect(retractAssistant.error).toEqual(invalid(second.id, undefined))
    const textItem = second.content[0]!
    const removeText = await api.session.removeItem({ sessionID, messageID: second.id, itemID: textItem.id })
    expect(removeText.response?.status).toBe(400)
    expect(removeText.error).toEqual(invalid(second.id, textItem.id))
    const removeFromUser = await api.session.removeItem({ sessionID, messageID: user.id, itemID: textItem.id })
    expect(removeFromUser.error).toEqual(invalid(user.id, textItem.id))
    // An empty correction is bad input, not a retraction.
    const empty = await api.session.correct({ sessionID, messageID: user.id, text: "" })
    expect(empty.response?.status).toBe(400)
    expect(empty.error).toMatchObject({ _tag: "InvalidRequestError", field: "text" })
    // None of them changed anything.
    expect((await api.session.messages({ sessionID })).data!.data).toEqual([user, first, second])
  })

  it("refuses mutations and resume with 409 SessionBusyError while a turn runs, and accepts them after", async () => {
    const model = await startOpenAIServer()
    try {
      const { api } = await startTestServer({
        config: localProviderConfig(model.url),
      })
      const session = (await api.session.create({})).data!.data
      const sessionID = session.id
      model.enqueue({ text: "first answer" })
      const first = (await api.session.prompt({ sessionID, prompt: { text: "first" } })).data!.data
      await api.session.wait({ sessionID })
      const user = (await api.session.message({ sessionID, messageID: first.id })).data!.data as SessionMessage
      const answer = (await api.session.messages({ sessionID })).data!.data.at(-1) as SessionMessageAssistant
      expect(answer.type).toBe("assistant")

      model.enqueue({ text: "held answer", hold: true })
      await api.session.prompt({ sessionID, prompt: { text: "second" } })
      await model.held()
      expect((await api.session.get({ sessionID })).data!.data.status).toBe("busy")

      const busy = { _tag: "SessionBusyError", sessionID, message: expect.any(String) }
      const results = [
        await api.session.correct({ sessionID, messageID: user.id, text: "x" }),
        await api.session.correct({ sessionID, messageID: answer.id, itemID: answer.content[0]!.id, text: "x" }),
        await api.session.retract({ sessionID, messageID: user.id }),
        await api.session.removeItem({ sessionID, messageID: answer.id, itemID: answer.content[0]!.id }),
        await api.session.resume({ sessionID }),
      ]
      for (const result of results) {
        expect(result.response?.status).toBe(409)
        expect(result.error).toEqual(busy)
      }
      // Nothing changed.
      expect((await api.session.message({ sessionID, messageID: user.id })).data!.data).toEqual(user)
      expect((await api.session.message({ sessionID, messageID: answer.id })).data!.data).toEqual(answer)

      model.release()
      await api.session.wait({ sessionID })
      const retracted = await api.session.retract({ sessionID, messageID: user.id })
      expect(retracted.data!.data).toMatchObject({ id: user.id, retracted: { by: "user" } })
    } finally {
      await model.close()
    }
  })

  it("interrupts a running turn", async () => {
    const model = await startOpenAIServer()
    try {
      const { api } = await startTestServer({
        config: localProviderConfig(model.url),
      })
      const sessionID = (await api.session.create({})).data!.data.id
      model.enqueue({ text: "never finished", hold: true })
      await api.session.prompt({ sessionID, prompt: { text: "go" } })
      await model.held()
      const interrupted = await api.session.interrupt({ sessionID })
      expect(interrupted.response?.status).toBe(204)
      const waited = await api.session.wait({ sessionID })
      expect(waited.response?.status).toBe(204)
      const after = (await api.session.get({ sessionID })).data!.data
      expect(after.status).toBe("idle")
      const partial = (await api.session.messages({ sessionID })).data!.data.at(-1)!
      expect(partial).toMatchObject({
        type: "assistant",
        finish: "interrupted",
        error: { type: "unknown", name: "Interrupted" },
      })
    } finally {
      await model.close()
    }
  })
})
