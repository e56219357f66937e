import { MaintenanceLayer, Session } from "@opencode-ai/core"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { Effect } from "effect"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startServer } from "../src/server.ts"
import { startScriptedModel } from "../src/testing/scripted-model.ts"
import { tempDir } from "./support/tmp.ts"

const model = startScriptedModel()
afterAll(() => model.close())

/** Starts a server, prompts, waits until the answer is held mid-stream, then stops it the given way. */
const stopMidTurn = async (how: "crash" | "stop") => {
  const directory = tempDir()
  const database = join(directory, "opencode.db")
  const server = await startServer({
    port: 0,
    database,
    logLevel: "Error",
    config: {
      directory,
      data: {
        model: "kit/scripted",
        provider: { kit: { type: "openai-compatible", baseURL: model.baseURL, models: { scripted: {} } } },
      },
    },
  })
  const client = createOpencodeClient({ baseUrl: server.url }).v2
  const sessionID = (await client.session.create({ location: { directory } })).data!.data.id
  const held = model.model.hold()
  model.model.reply("an answer cut off half way")
  await client.session.prompt({ sessionID, prompt: { text: "go" } })
  await held
  await (how === "crash" ? server.crash() : server.stop())
  // Read the file as the next process would, without resuming anything.
  return Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* Session
      return { claim: store.sync.claimed(sessionID), items: (yield* store.messages(sessionID)).data }
    }).pipe(Effect.provide(MaintenanceLayer({ path: database, persist: false }))),
  )
}

describe("RunningServer.crash()", () => {
  it("leaves the database as a kill would: the claim stays and the cut-off answer stays open", async () => {
    const { claim, items } = await stopMidTurn("crash")
    expect(claim).toMatchObject({ reason: "prompt" })
    const answer = items.find((message) => message.type === "assistant")
    expect(answer).toBeDefined()
    expect(answer && "time" in answer ? answer.time.completed : "missing").toBeUndefined()
  })

  it("unlike a graceful stop, which records the partial answer as interrupted (the claim stays too)", async () => {
    const { claim, items } = await stopMidTurn("stop")
    expect(claim).toMatchObject({ reason: "prompt" })
    expect(items.find((message) => message.type === "assistant")).toMatchObject({ finish: "interrupted" })
  })
})
