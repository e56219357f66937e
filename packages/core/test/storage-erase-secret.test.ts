import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Erase } from "../src/session/erase.ts"
import { Execution } from "../src/session/execution.ts"
import type { AssistantMessage } from "../src/session/message.ts"
import { Mutation } from "../src/session/mutation.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { makeHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"
import { tempDir } from "./support/tmp.ts"
import { countInDatabaseFiles } from "./support/secret-scan.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const SECRET = "sk-live-7f3a9c1e5b2d4f6a8c0e2b4d6f8a0c2e"

/** Occurrences of the secret in the database file and its WAL and SHM companions. */
const scan = (path: string) => countInDatabaseFiles(path, SECRET)

describe("erasing superseded content", () => {
  it("a secret the model wrote into a reply and a tool output, corrected and removed, is gone from every file after erase", async () => {
    const directory = tempDir()
    writeFileSync(join(directory, "credentials.txt"), `token=${SECRET}\n`)
    const host = makeHost({ directory, config: localModel(server, { events: { persist: true } }) })
    server.enqueue(
      {
        text: `Your key is ${SECRET}, let me check the file.`,
        toolCalls: [{ id: "call_cred", name: "read", arguments: { path: "credentials.txt" } }],
      },
      { text: "It matches." },
    )
    const { sessionID, database } = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory })
        yield* execution.prompt({ sessionID: info.id, text: "what is my key?" })
        yield* execution.wait(info.id)
        return { sessionID: info.id, database: yield* Database }
      }),
    )
    await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const mutation = yield* Mutation
        const reply = (yield* session.messages(sessionID)).items[1] as AssistantMessage
        const text = reply.parts.find((p) => p.type === "text")!
        const tool = reply.parts.find((p) => p.type === "tool")!
        expect(tool.type === "tool" && tool.output).toContain(SECRET)
        yield* mutation.correct({
          sessionID,
          messageID: reply.id,
          partID: text.id,
          text: "Your key is [redacted], let me check the file.",
          by: "plugin:redactor",
        })
        yield* mutation.removePart({ sessionID, messageID: reply.id, partID: tool.id, by: "plugin:redactor" })
      }),
    )
    // The projection no longer shows it, but the journal (and old pages) still hold it: the scan can fail.
    const live = await host.run(
      Effect.gen(function* () {
        return (yield* Session).sync.transcript(sessionID)
      }),
    )
    expect(JSON.stringify(live)).not.toContain(SECRET)
    database.client.run("PRAGMA wal_checkpoint(PASSIVE)")
    expect(scan(database.path)).toBeGreaterThan(0)

    const summary = await host.run(
      Effect.gen(function* () {
        return yield* (yield* Erase).session({ sessionID, by: "user" })
      }),
    )
    expect(summary.events).toBeGreaterThanOrEqual(3)
    expect(summary.bytes).toBeGreaterThan(0)
    expect(scan(database.path)).toBe(0)

    // Tombstones keep type, seq and a content hash; replay still gives the live projection.
    const tombstones = database.client
      .query("SELECT type, seq, data FROM event WHERE aggregate_id = ? AND data LIKE '%tombstone%' ORDER BY seq")
      .all(sessionID) as Array<{ type: string; seq: number; data: string }>
    expect(tombstones.length).toBe(summary.events)
    for (const row of tombstones) expect(JSON.parse(row.data).tombstone.sha256).toMatch(/^[0-9a-f]{64}$/)
    const erased = database.client
      .query("SELECT data FROM event WHERE aggregate_id = ? AND type = 'session.erased'")
      .get(sessionID) as { data: string }
    expect(JSON.parse(erased.data)).toMatchObject({ events: summary.events, by: "user" })
    const target = Database.open(":memory:")
    replay(database.client, target, makeSessionProjector(target.client))
    expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(database.client))
    target.client.close()
    await host.dispose()
    expect(scan(database.path)).toBe(0)
  })

  it("erases a deleted session's whole journal, and answers an unknown session with the typed error", async () => {
    const directory = tempDir()
    const host = makeHost({ directory, config: { events: { persist: true } } })
    const result = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const erase = yield* Erase
        const info = yield* session.create({ directory })
        yield* execution.prompt({ sessionID: info.id, text: `remember ${SECRET}` })
        yield* execution.wait(info.id)
        yield* execution.remove(info.id)
        const summary = yield* erase.session({ sessionID: info.id, by: "user" })
        const missing = yield* Effect.flip(erase.session({ sessionID: "ses_never", by: "user" }))
        return { summary, missing, database: yield* Database }
      }),
    )
    expect(result.summary.events).toBeGreaterThan(0)
    expect(result.missing).toMatchObject({ _tag: "Session.NotFoundError", sessionID: "ses_never" })
    expect(scan(result.database.path)).toBe(0)
    await host.dispose()
  })
})
