import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LISTENING, readRest, readUntil, spawnCli } from "./support/cli.ts"
import { eventLog } from "./support/event-log.ts"
import { tempDir } from "./support/tmp.ts"
import { createOpencodeClient, type V2Event } from "@opencode-ai/sdk/v2"
import { toolItems } from "./support/transcript.ts"

// An ask (or a question) left pending by a killed process, answered over HTTP after the restart but before
// the resumed turn has read it. `--no-resume` holds that window open deterministically: the session stays
// suspended, the answer is committed, and only then does `POST .../resume` start the turn that must honour it.

const setup = () => {
  const cwd = tempDir()
  const work = join(cwd, "work")
  mkdirSync(work)
  const config = join(cwd, "opencode.json")
  writeFileSync(config, JSON.stringify({}))
  const db = join(cwd, "kill.db")
  const serve = async (args: ReadonlyArray<string> = []) => {
    const child = spawnCli(["serve", "--port", "0", "--db", db, ...args], { cwd, env: { OPENCODE_CONFIG: config } })
    const { text, reader } = await readUntil(child.stdout, (out) => LISTENING.test(out))
    const match = LISTENING.exec(text)
    if (!match) throw new Error(`serve exited (${await child.exited}): ${await new Response(child.stderr).text()}`)
    void readRest(reader)
    const client = createOpencodeClient({ baseUrl: match[1]! })
    return { child, client, api: client.v2 }
  }
  return { work, serve }
}

type Asked = Extract<V2Event, { type: "permission.v2.asked" }>
type QuestionAsked = Extract<V2Event, { type: "question.v2.asked" }>

describe("an ask answered after a restart, before the resumed turn reads it", () => {
  it("permission: the stored call runs exactly once with the answer given while suspended", async () => {
    const { work, serve } = setup()
    writeFileSync(join(work, "a.txt"), "hello\n")
    const first = await serve()
    const sessionID = (await first.api.session.create({ location: { directory: work } })).data!.data.id
    const events = await eventLog(first.client, sessionID)
    await first.api.session.prompt({
      sessionID,
      prompt: { text: `/tool edit {"path":"a.txt","oldString":"hello","newString":"hello hello"}` },
    })
    const asked = await events.next<Asked>((e) => e.type === "permission.v2.asked", "asked")
    events.close()
    first.child.kill("SIGKILL")
    await first.child.exited

    const second = await serve(["--no-resume"])
    expect((await second.api.session.get({ sessionID })).data!.data.status).toBe("suspended")
    const answered = await second.api.session.permission.reply({ sessionID, requestID: asked.data.id, reply: "once" })
    expect(answered.response?.status).toBe(204)
    // Answered: nothing is pending any more, yet the call has not run.
    expect((await second.api.session.permission.list({ sessionID })).data!.data).toEqual([])
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello\n")

    const resumed = await second.api.session.resume({ sessionID })
    expect(resumed.response?.status).toBeLessThan(300)
    await second.api.session.wait({ sessionID })
    expect((await second.api.session.get({ sessionID })).data!.data.status).toBe("idle")
    // Applied once: twice would read "hello hello hello".
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello hello\n")
    const messages = (await second.api.session.messages({ sessionID })).data!.data
    expect(toolItems(messages)).toMatchObject([{ id: asked.data.itemID, name: "edit", state: { status: "completed" } }])
    // Every assistant message is closed: none is left with an open call.
    expect(messages.filter((m) => m.type === "assistant" && m.time.completed === undefined)).toEqual([])
    second.child.kill("SIGTERM")
    await second.child.exited

    // A further restart finds nothing to redo.
    const third = await serve()
    await third.api.session.wait({ sessionID })
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("hello hello\n")
    expect(toolItems((await third.api.session.messages({ sessionID })).data!.data)).toHaveLength(1)
    third.child.kill("SIGTERM")
    await third.child.exited
  })

  it("question: the call completes once with the answers given while suspended", async () => {
    const { work, serve } = setup()
    const questions = {
      questions: [
        {
          question: "Which database?",
          header: "Database",
          options: [
            { label: "SQLite", description: "one file" },
            { label: "Postgres", description: "a server" },
          ],
        },
      ],
    }
    const first = await serve()
    const sessionID = (await first.api.session.create({ location: { directory: work } })).data!.data.id
    const events = await eventLog(first.client, sessionID)
    await first.api.session.prompt({ sessionID, prompt: { text: `/tool question ${JSON.stringify(questions)}` } })
    const asked = await events.next<QuestionAsked>((e) => e.type === "question.v2.asked", "asked")
    events.close()
    first.child.kill("SIGKILL")
    await first.child.exited

    const second = await serve(["--no-resume"])
    const answered = await second.api.session.question.reply({
      sessionID,
      requestID: asked.data.id,
      questionV2Reply: { answers: [["Postgres"]] },
    })
    expect(answered.response?.status).toBe(204)
    expect((await second.api.session.question.list({ sessionID })).data!.data).toEqual([])

    await second.api.session.resume({ sessionID })
    await second.api.session.wait({ sessionID })
    expect((await second.api.session.get({ sessionID })).data!.data.status).toBe("idle")
    const messages = (await second.api.session.messages({ sessionID })).data!.data
    expect(toolItems(messages)).toMatchObject([
      {
        name: "question",
        state: { status: "completed", content: [{ type: "text", text: expect.stringContaining('= "Postgres"') }] },
      },
    ])
    expect(messages.filter((m) => m.type === "assistant" && m.time.completed === undefined)).toEqual([])
    // The question was asked once: the resumed call found its settled request instead of asking again.
    expect((await second.api.session.question.list({ sessionID })).data!.data).toEqual([])
    second.child.kill("SIGTERM")
    await second.child.exited
  })
})
