import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { Bus, type BusEvent } from "../src/bus/bus.ts"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Permissions } from "../src/permission/permission.ts"
import { Erase } from "../src/maintenance/erase.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { hostLayer, testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"
import { countInDatabaseFiles } from "./support/secret-scan.ts"
import { tempDir } from "./support/tmp.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

/** One secret per place superseded content can sit, so each is checked on its own. */
const SECRETS = {
  /** In a prompt, later corrected. */
  prompt: "sk-live-prompt7f3a9c1e5b2d4f6a8c0e2b4d",
  /** In a prompt that waited behind the running turn and was retracted before its delivery. */
  queued: "sk-live-queued1b7d3f5a9c2e4b6d8f0a2c4e",
  /** In the model's reasoning, later removed. */
  reasoning: "sk-live-reason5e1c7a3f9b2d4e6a8c0b2d4f",
  /** In the model's reply text, later corrected. */
  text: "sk-live-answer9a3c5e7b1d2f4a6c8e0b2d4a",
  /** In the input of a read call (the file's name), pruned. */
  input: "sk-live-inputs3d5f7b9a1c2e4f6b8d0a2c4b",
  /** In the output of that read call (the file's content). */
  output: "sk-live-output8b2d4f6a9c1e3b5d7f0a2c4d",
  /** In an edit call writing it (its input, its diff, and its permission request's metadata and input), pruned. */
  diff: "sk-live-diffed4c6e8a1b3d5f7a9c2e4b6d8f",
  /** In a notice, later retracted. */
  notice: "sk-live-notice2a4c6e8b1d3f5a7c9e0b2d4f",
} as const

/** Occurrences of a secret in the database file and its WAL and SHM companions. */
const scan = (path: string, secret: string) => countInDatabaseFiles(path, secret)
const scanAll = (path: string) =>
  Object.fromEntries(Object.entries(SECRETS).map(([name, secret]) => [name, scan(path, secret)]))

describe("erasing superseded content", () => {
  it.live(
    "secrets in a corrected prompt, a retracted queued prompt, removed reasoning, a corrected reply, pruned calls with their permission request and a retracted notice are gone from every file",
    () => {
      const directory = tempDir()
      const file = `${SECRETS.input}.txt`
      writeFileSync(join(directory, file), `token=${SECRETS.output}\n`)
      const host = testHost({ directory, config: localModel(server, { events: { persist: true } }) })
      server.enqueue(
        {
          reasoning: `The user's key should be ${SECRETS.reasoning}.`,
          text: `Your key is ${SECRETS.text}, let me check the file.`,
          toolCalls: [
            { id: "call_read", name: "read", arguments: { path: file } },
            {
              id: "call_edit",
              name: "edit",
              arguments: { path: "secret.env", oldString: "", newString: `TOKEN=${SECRETS.diff}\n` },
            },
          ],
          hold: true,
        },
        { text: "It matches." },
      )
      let asked!: (event: BusEvent) => void
      const ask = new Promise<BusEvent>((resolve) => (asked = resolve))
      return Effect.gen(function* () {
        const path = yield* Effect.gen(function* () {
          const { sessionID, database, queued } = yield* Effect.gen(function* () {
            const session = yield* Session
            const execution = yield* Execution
            const mutation = yield* Mutation
            const info = yield* session.create({ directory })
            ;(yield* Bus).subscribe((event) => {
              if (event.type === "permission.v2.asked" && event.sessionID === info.id) asked(event)
            })
            yield* execution.prompt({ sessionID: info.id, prompt: { text: `what is my key? it is ${SECRETS.prompt}` } })
            // While the answer streams, a second prompt waits behind the turn; it is retracted before delivery.
            yield* Effect.promise(() => server.held())
            const queued = yield* execution.prompt({ sessionID: info.id, prompt: { text: `also ${SECRETS.queued}` } })
            yield* mutation.retract({ sessionID: info.id, messageID: queued.id, by: "user" })
            server.release()
            return { sessionID: info.id, database: yield* Database, queued }
          })
          expect(queued.queued).toBe(true)
          // The edit asks for permission; answered once, the turn runs to its end.
          const request = yield* Effect.promise(() => ask)
          yield* Effect.gen(function* () {
            const requestID = (request.data as { id: string }).id
            yield* (yield* Permissions).reply({ sessionID, requestID, reply: "once" })
            yield* (yield* Execution).wait(sessionID)
            yield* (yield* Execution).synthetic({
              sessionID,
              text: `note: the key is ${SECRETS.notice}`,
              origin: "plugin:redactor",
              resume: false,
            })
          })
          expect(JSON.stringify(request.data)).toContain(SECRETS.diff)

          yield* Effect.gen(function* () {
            const session = yield* Session
            const mutation = yield* Mutation
            const messages = (yield* session.messages(sessionID)).data
            const prompt = messages.find((m) => m.type === "user" && !m.retracted)!
            const reply = messages.find((m): m is AssistantMessage => m.type === "assistant")!
            const notice = messages.find((m) => m.type === "synthetic")!
            const item = (type: string, name?: string) =>
              reply.content.find(
                (i) => i.type === type && (name === undefined || (i.type === "tool" && i.name === name)),
              )!
            // Each secret is where the test says, before anything changes.
            expect(messages.find((m) => m.id === queued.id)).toMatchObject({ type: "user", text: "", retracted: {} })
            expect(JSON.stringify(prompt)).toContain(SECRETS.prompt)
            expect(JSON.stringify(item("reasoning"))).toContain(SECRETS.reasoning)
            expect(JSON.stringify(item("text"))).toContain(SECRETS.text)
            expect(JSON.stringify(item("tool", "read"))).toContain(SECRETS.input)
            expect(JSON.stringify(item("tool", "read"))).toContain(SECRETS.output)
            expect(item("tool", "edit")).toMatchObject({
              state: { status: "completed", structured: { diff: expect.stringContaining(SECRETS.diff) } },
            })
            expect(JSON.stringify(notice)).toContain(SECRETS.notice)

            yield* mutation.correct({
              sessionID,
              messageID: prompt.id,
              text: "what is my key? it is [redacted]",
              by: "user",
            })
            yield* mutation.correct({
              sessionID,
              messageID: reply.id,
              itemID: item("text").id,
              text: "Your key is [redacted], let me check the file.",
              by: "plugin:redactor",
            })
            for (const removed of [item("reasoning"), item("tool", "read"), item("tool", "edit")])
              yield* mutation.removeItem({ sessionID, messageID: reply.id, itemID: removed.id, by: "plugin:redactor" })
            yield* mutation.retract({ sessionID, messageID: notice.id, by: "plugin:redactor" })
          })
          // The transcript no longer shows any of them, but the journal (and old pages) still hold them: every
          // scan can fail.
          const live = yield* Effect.gen(function* () {
            return (yield* Session).sync.transcript(sessionID) as ReadonlyArray<Message>
          })
          for (const secret of Object.values(SECRETS)) expect(JSON.stringify(live)).not.toContain(secret)
          database.client.run("PRAGMA wal_checkpoint(PASSIVE)")
          for (const [name, count] of Object.entries(scanAll(database.path)))
            expect([name, count > 0]).toEqual([name, true])

          const summary = yield* Effect.gen(function* () {
            return yield* (yield* Erase).session({ sessionID, by: "user" })
          })
          expect(summary.events).toBeGreaterThanOrEqual(8)
          expect(summary.bytes).toBeGreaterThan(0)
          expect(scanAll(database.path)).toEqual(Object.fromEntries(Object.keys(SECRETS).map((name) => [name, 0])))

          // Tombstones keep type, seq and a content hash; replay still gives the live projection.
          const tombstones = database.client
            .query("SELECT type, seq, data FROM event WHERE aggregate_id = ? AND data LIKE '%tombstone%' ORDER BY seq")
            .all(sessionID) as Array<{ type: string; seq: number; data: string }>
          expect(tombstones.length).toBe(summary.events)
          for (const row of tombstones) expect(JSON.parse(row.data).tombstone.sha256).toMatch(/^[0-9a-f]{64}$/)
          const erased = database.client
            .query("SELECT data FROM event WHERE aggregate_id = ? AND type = 'session.next.erased'")
            .get(sessionID) as { data: string }
          expect(JSON.parse(erased.data)).toMatchObject({ events: summary.events, by: "user" })
          const target = Database.open(":memory:")
          replay(database.client, target, makeSessionProjector(target.client))
          expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(database.client))
          target.client.close()
          return database.path
        }).pipe(Effect.provide(host.layer))
        // Closed, the host leaves no copy behind in the database files either.
        expect(scanAll(path)).toEqual(Object.fromEntries(Object.keys(SECRETS).map((name) => [name, 0])))
      })
    },
  )

  it.live("erases a deleted session's whole journal, and answers an unknown session with the typed error", () => {
    const directory = tempDir()
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const erase = yield* Erase
        const info = yield* session.create({ directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: `remember ${SECRETS.prompt}` } })
        yield* execution.wait(info.id)
        yield* execution.remove(info.id)
        const database = yield* Database
        database.client.run("PRAGMA wal_checkpoint(PASSIVE)")
        const before = scan(database.path, SECRETS.prompt)
        const summary = yield* erase.session({ sessionID: info.id, by: "user" })
        const missing = yield* Effect.flip(erase.session({ sessionID: "ses_never", by: "user" }))
        return { before, summary, missing, database }
      })
      expect(result.before).toBeGreaterThan(0)
      expect(result.summary.events).toBeGreaterThan(0)
      expect(result.missing).toMatchObject({ _tag: "Session.NotFoundError", sessionID: "ses_never" })
      expect(scan(result.database.path, SECRETS.prompt)).toBe(0)
    }).pipe(Effect.provide(hostLayer({ directory, config: { events: { persist: true } } })))
  })
})
