import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LISTENING, readRest, readUntil, spawnCli } from "./support/cli.ts"
import { replayFromJournal } from "./support/e2e-store.ts"
import { eventLog } from "./support/event-log.ts"
import { json, startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"
import { createOpencodeClient, type V2Event } from "@opencode-ai/sdk/v2"
import { toolItems } from "./support/transcript.ts"

type Asked = Extract<V2Event, { type: "question.v2.asked" }>
const isAsked = (e: { type: string }) => e.type === "question.v2.asked"

const QUESTIONS = {
  questions: [
    {
      question: "Which database should the service use?",
      header: "Database",
      options: [
        { label: "SQLite", description: "one file, no server" },
        { label: "Postgres", description: "a server" },
      ],
    },
    {
      question: "Which extras?",
      header: "Extras",
      multiple: true,
      options: [
        { label: "Metrics", description: "expose /metrics" },
        { label: "Tracing", description: "OpenTelemetry" },
      ],
    },
  ],
}
const askPrompt = `/tool question ${JSON.stringify(QUESTIONS)}`

describe("todos", () => {
  it("todowrite replaces the list: a durable todo.updated, served at GET .../todo, read back by todoread, replayed", async () => {
    const t = await startTestServer()
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const events = await eventLog(t.client, sessionID)
    expect((await t.fetch(`/api/session/${sessionID}/todo`).then((r) => r.json())) as unknown).toEqual({ data: [] })

    const first = [
      { content: "write the parser", status: "in_progress", priority: "high" },
      { content: "document it", status: "pending", priority: "low" },
    ]
    await t.api.session.prompt({ sessionID, prompt: { text: `/tool todowrite ${JSON.stringify({ todos: first })}` } })
    const updated = await events.next((e) => e.type === "todo.updated", "todo.updated")
    expect(updated.data).toMatchObject({ sessionID, todos: first })
    expect((updated as { durable?: unknown }).durable).toBeDefined()
    await t.api.session.wait({ sessionID })

    const second = [{ ...first[0]!, status: "completed" }, first[1]!]
    await t.api.session.prompt({ sessionID, prompt: { text: `/tool todowrite ${JSON.stringify({ todos: second })}` } })
    await t.api.session.wait({ sessionID })
    const served = await t.fetch(`/api/session/${sessionID}/todo`)
    expect(served.status).toBe(200)
    expect(await served.json()).toEqual({ data: second })

    await t.api.session.prompt({ sessionID, prompt: { text: "/tool todoread {}" } })
    await t.api.session.wait({ sessionID })
    const items = toolItems((await t.api.session.messages({ sessionID })).data!.data)
    expect(items.map((i) => i.name)).toEqual(["todowrite", "todowrite", "todoread"])
    expect(items[2]).toMatchObject({
      state: {
        status: "completed",
        content: [{ type: "text", text: expect.stringContaining("[completed] (high) write the parser") }],
      },
    })

    // A bad item is a tool error naming the field, and the list stays as it was.
    await t.api.session.prompt({
      sessionID,
      prompt: {
        text: `/tool todowrite ${JSON.stringify({ todos: [{ content: "x", status: "later", priority: "high" }] })}`,
      },
    })
    await t.api.session.wait({ sessionID })
    const last = toolItems((await t.api.session.messages({ sessionID })).data!.data).at(-1)!
    expect(last.state).toMatchObject({
      status: "error",
      error: { message: expect.stringContaining("todos[0].status") },
    })
    expect(await t.fetch(`/api/session/${sessionID}/todo`).then((r) => r.json())).toEqual({ data: second })

    const missing = await t.fetch(`/api/session/ses_missing/todo`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ _tag: "SessionNotFoundError" })

    const { live, replayed } = replayFromJournal(t.database)
    expect(replayed.session_todo).toEqual(live.session_todo)
    expect(replayed).toEqual(live)
    events.close()
  })
})

describe("question routes", () => {
  it("a question is listed, answered over HTTP, and its answer is the tool's output; bad replies are typed 4xx", async () => {
    const t = await startTestServer()
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const other = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const events = await eventLog(t.client, sessionID)
    await t.api.session.prompt({ sessionID, prompt: { text: askPrompt } })
    const asked = await events.next<Asked>(isAsked, "asked")
    const requestID = asked.data.id
    const pending = {
      id: requestID,
      sessionID,
      questions: QUESTIONS.questions,
      tool: { messageID: expect.stringMatching(/^msg_/), callID: expect.any(String) },
    }
    expect((await t.api.session.question.list({ sessionID })).data!.data).toMatchObject([pending])
    expect((await t.api.question.request.list()).data!.data).toMatchObject([pending])
    // The turn waits for the answer, holding the claim.
    expect((await t.api.session.get({ sessionID })).data!.data.status).toBe("waiting")

    const reply = (id: string, session: string, body: unknown) =>
      t.fetch(`/api/session/${session}/question/${id}/reply`, json("POST", body))
    const wrongCount = await reply(requestID, sessionID, { answers: [["SQLite"]] })
    expect(wrongCount.status).toBe(400)
    expect(await wrongCount.json()).toMatchObject({ _tag: "InvalidRequestError", field: "answers" })
    const twoForOne = await reply(requestID, sessionID, { answers: [["SQLite", "Postgres"], ["Metrics"]] })
    expect(twoForOne.status).toBe(400)
    expect(await twoForOne.json()).toMatchObject({
      _tag: "InvalidRequestError",
      message: expect.stringContaining("answers[0]"),
    })
    const notJson = await reply(requestID, sessionID, { answers: "SQLite" })
    expect(notJson.status).toBe(400)
    const unknown = await reply("per_unknown", sessionID, { answers: [["SQLite"], []] })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ _tag: "QuestionNotFoundError", requestID: "per_unknown" })
    const wrongSession = await reply(requestID, other, { answers: [["SQLite"], ["Metrics"]] })
    expect(wrongSession.status).toBe(404)
    expect(await wrongSession.json()).toMatchObject({ _tag: "QuestionNotFoundError", sessionID: other })
    const badID = await reply("nope", sessionID, { answers: [] })
    expect(badID.status).toBe(400)
    // None of that settled it.
    expect((await t.api.session.question.list({ sessionID })).data!.data.map((q) => q.id)).toEqual([requestID])

    const answered = await t.api.session.question.reply({
      sessionID,
      requestID,
      questionV2Reply: { answers: [["Postgres"], ["Metrics", "Tracing"]] },
    })
    expect(answered.response?.status).toBe(204)
    const replied = await events.next((e) => e.type === "question.v2.replied", "replied")
    expect(replied.data).toMatchObject({ requestID, answers: [["Postgres"], ["Metrics", "Tracing"]] })
    await t.api.session.wait({ sessionID })
    const [item] = toolItems((await t.api.session.messages({ sessionID })).data!.data)
    expect(item).toMatchObject({
      name: "question",
      state: {
        status: "completed",
        content: [{ type: "text", text: expect.stringContaining('"Which extras?" = "Metrics", "Tracing"') }],
      },
    })
    const again = await reply(requestID, sessionID, { answers: [["SQLite"], ["Metrics"]] })
    expect(again.status).toBe(404)
    expect((await t.api.session.question.list({ sessionID })).data!.data).toEqual([])

    const { live, replayed } = replayFromJournal(t.database)
    expect(replayed).toEqual(live)
    events.close()
  })

  it("reject fails the tool call and the turn goes on; interrupt rejects a pending question", async () => {
    const t = await startTestServer()
    const sessionID = (await t.api.session.create({ location: { directory: t.directory } })).data!.data.id
    const events = await eventLog(t.client, sessionID)
    await t.api.session.prompt({ sessionID, prompt: { text: askPrompt } })
    const asked = await events.next<Asked>(isAsked, "asked")
    // A reject and a reply racing: exactly one settles the question, the other is 404.
    const [rejected, racing] = await Promise.all([
      t.api.session.question.reject({ sessionID, requestID: asked.data.id }),
      t.fetch(
        `/api/session/${sessionID}/question/${asked.data.id}/reply`,
        json("POST", { answers: [["SQLite"], ["Metrics"]] }),
      ),
    ])
    expect([rejected.response?.status, racing.status].sort()).toEqual([204, 404])
    // The test goes on from the reject; make it the winner by looking at which one lost.
    const rejectWon = rejected.response?.status === 204
    await t.api.session.wait({ sessionID })
    const messages = (await t.api.session.messages({ sessionID })).data!.data
    expect(toolItems(messages)).toMatchObject([
      rejectWon
        ? { name: "question", state: { status: "error", error: { message: expect.stringContaining("dismissed") } } }
        : { name: "question", state: { status: "completed" } },
    ])
    // The model got the error and answered: the turn completed.
    expect(messages.at(-1)).toMatchObject({ type: "assistant" })
    const twice = await t.api.session.question.reject({ sessionID, requestID: asked.data.id })
    expect(twice.response?.status).toBe(404)

    await t.api.session.prompt({ sessionID, prompt: { text: askPrompt } })
    const second = await events.next<Asked>((e) => isAsked(e) && (e as Asked).data.id !== asked.data.id, "second")
    await t.api.session.interrupt({ sessionID })
    await events.next(
      (e) => e.type === "question.v2.rejected" && (e.data as { requestID: string }).requestID === second.data.id,
      "rejected by interrupt",
    )
    expect((await t.api.session.question.list({ sessionID })).data!.data).toEqual([])
    events.close()
  })
})

describe("a pending question across a SIGKILL", () => {
  it("survives with the same id; answering after the restart completes the call once", async () => {
    const cwd = tempDir()
    const work = join(cwd, "work")
    mkdirSync(work)
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
    await first.api.session.prompt({ sessionID, prompt: { text: askPrompt } })
    const asked = await events.next<Asked>(isAsked, "asked")
    const requestID = asked.data.id
    events.close()
    first.child.kill("SIGKILL")
    await first.child.exited

    const second = await serve()
    const pending = await second.api.session.question.list({ sessionID })
    expect(pending.data!.data.map((q) => q.id)).toEqual([requestID])
    const answered = await second.api.session.question.reply({
      sessionID,
      requestID,
      questionV2Reply: { answers: [["SQLite"], ["Tracing"]] },
    })
    expect(answered.response?.status).toBe(204)
    await second.api.session.wait({ sessionID })
    expect((await second.api.session.get({ sessionID })).data!.data.status).toBe("idle")
    const items = toolItems((await second.api.session.messages({ sessionID })).data!.data)
    // One question call in the whole transcript, completed with the answer given after the restart.
    expect(items).toMatchObject([
      {
        name: "question",
        state: { status: "completed", content: [{ type: "text", text: expect.stringContaining('= "SQLite"') }] },
      },
    ])
    second.child.kill("SIGTERM")
    await second.child.exited
  })
})
