import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import { Bus, type BusEvent } from "../src/bus/bus.ts"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import type { HostServices } from "../src/host.ts"
import { Permissions } from "../src/permission/permission.ts"
import { Erase } from "../src/maintenance/erase.ts"
import { Execution } from "../src/turn/execution.ts"
import type { ToolItem } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Prune } from "../src/maintenance/prune.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"
import { countInDatabaseFiles } from "./support/secret-scan.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const SECRET = "ghp_Zq8vN3kLw5Rt7Yp2Xc4Bm6Hd9Fs1Gj0Ka"
// Only the model writes the secret (the user's prompt is live content, never erased): a call it asks for.
const SECRET_COMMAND = `echo 'Authorization: token ${SECRET}' > token.txt`
const KEPT_COMMAND = "echo kept > kept.txt"
/** What the bash rules see of each (its ask's patterns): the command, without the redirection. */
const SECRET_SUBJECT = `echo Authorization: token ${SECRET}`
const KEPT_SUBJECT = "echo kept"
interface Call {
  readonly name: string
  readonly arguments: unknown
}
const bash = (command: string): Call => ({ name: "bash", arguments: { command } })
/** Writes the secret into a new file: the ask's `metadata.diff` carries it. */
const writeSecret: Call = {
  name: "edit",
  arguments: { path: "secret.env", oldString: "", newString: `TOKEN=${SECRET}\n` },
}

/** Occurrences of the secret in the database file and its WAL and SHM companions. */
const scan = (path: string) => countInDatabaseFiles(path, SECRET)

interface Asked {
  readonly data: { readonly id: string; readonly itemID: string; readonly resources: ReadonlyArray<string> }
}

/**
 * A host with a journal (closed with the test's scope), a session, and a way to answer the asks of a prompt
 * as they come.
 */
const setup = Effect.fnUntraced(function* () {
  const host = testHost({ config: localModel(server, { events: { persist: true }, permission: { bash: "ask" } }) })
  const services = yield* Layer.build(host.layer)
  const events: Array<BusEvent> = []
  const listeners = new Set<() => void>()
  const run = <A, E>(effect: Effect.Effect<A, E, HostServices>) => effect.pipe(Effect.provide(services))
  const { sessionID, database } = yield* run(
    Effect.gen(function* () {
      ;(yield* Bus).subscribe((event) => {
        events.push(event)
        for (const listener of listeners) listener()
      })
      const info = yield* (yield* Session).create({ directory: host.directory })
      return { sessionID: info.id, database: yield* Database }
    }),
  )
  /** The `index`-th ask of the session (already seen or still to come). */
  const ask = (index: number) =>
    Effect.callback<Asked>((resume) => {
      const check = () => {
        const found = events.filter((e) => e.type === "permission.v2.asked")[index]
        if (found) {
          listeners.delete(check)
          resume(Effect.succeed(found as unknown as Asked))
        }
      }
      listeners.add(check)
      check()
      return Effect.sync(() => listeners.delete(check))
    })
  const reply = (asked: Asked, reply: "once" | "always") =>
    run(Permissions.use((p) => p.reply({ sessionID, requestID: asked.data.id, reply })))
  const asks = () => events.filter((e) => e.type === "permission.v2.asked").length
  /**
   * A turn in which the model makes `calls` then answers "done": each of the `asked` asks is answered
   * with `answer`, and the turn is waited for.
   */
  const turn = (calls: ReadonlyArray<Call>, asked: number, answer: "once" | "always" = "once") =>
    Effect.gen(function* () {
      const before = asks()
      server.enqueue({ toolCalls: calls }, { text: "done" })
      yield* run(Execution.use((e) => e.prompt({ sessionID, prompt: { text: "run it" } })))
      const answered: Array<Asked> = []
      for (let index = before; index < before + asked; index++) {
        const asked = yield* ask(index)
        yield* reply(asked, answer)
        answered.push(asked)
      }
      yield* run(Execution.use((e) => e.wait(sessionID)))
      return answered
    })
  const toolItems = () =>
    run(Session.use((s) => s.messages(sessionID))).pipe(
      Effect.map((page) =>
        page.data.flatMap((m) =>
          m.type === "assistant"
            ? m.content.filter((i): i is ToolItem => i.type === "tool").map((item) => ({ messageID: m.id, item }))
            : [],
        ),
      ),
    )
  const erase = () => run(Erase.use((e) => e.session({ sessionID, by: "plugin:redactor" })))
  const permissionRow = (id: string) =>
    database.client.query("SELECT data, reply FROM session_permission WHERE id = ?").get(id) as {
      data: string
      reply: string | null
    }
  const askEvent = (id: string) =>
    (
      database.client
        .query("SELECT data FROM event WHERE aggregate_id = ? AND type = 'permission.v2.asked'")
        .all(sessionID) as Array<{ data: string }>
    )
      .map((row) => JSON.parse(row.data))
      .find((data) => data.id === id)
  /** Replays the journal into a fresh database and compares its projection with the live one. */
  const replayed = () => {
    const target = Database.open(":memory:")
    replay(database.client, target, makeSessionProjector(target.client))
    const snapshot = projectionSnapshot(target.client)
    target.client.close()
    return snapshot
  }
  return {
    host,
    sessionID,
    database,
    run,
    ask,
    turn,
    toolItems,
    erase,
    permissionRow,
    askEvent,
    replayed,
  }
})

describe("erasing the permission asks of superseded tool calls", () => {
  it.live(
    "removed calls' asks lose the command and the diff in the journal and the projection; a live call's ask is kept",
    () =>
      Effect.gen(function* () {
        const path = yield* Effect.scoped(
          Effect.gen(function* () {
            const t = yield* setup()
            const [command, edit, kept] = yield* t.turn([bash(SECRET_COMMAND), writeSecret, bash(KEPT_COMMAND)], 3)
            expect(command!.data.resources).toEqual([SECRET_SUBJECT])
            expect(JSON.stringify(t.permissionRow(edit!.data.id))).toContain(SECRET)
            expect(kept!.data.resources).toEqual([KEPT_SUBJECT])
            const items = yield* t.toolItems()
            for (const asked of [command!, edit!]) {
              const { messageID, item } = items.find(({ item }) => item.id === asked.data.itemID)!
              yield* t.run(
                Mutation.use((m) =>
                  m.removeItem({ sessionID: t.sessionID, messageID, itemID: item.id, by: "plugin:redactor" }),
                ),
              )
            }
            const keptRow = t.permissionRow(kept!.data.id)
            const keptEvent = t.askEvent(kept!.data.id)
            t.database.client.run("PRAGMA wal_checkpoint(PASSIVE)")
            expect(scan(t.database.path)).toBeGreaterThan(0)

            const summary = yield* t.erase()
            expect(scan(t.database.path)).toBe(0)

            // Each ask's journal row keeps its ids, tool, rule kind and a tombstone; its content is emptied, and
            // its projected row is emptied the same way and keeps its answer.
            for (const [asked, tool, fields] of [
              [command!, "bash", ["input", "resources", "save", "title"]],
              [edit!, "edit", ["input", "metadata", "resources", "save", "title"]],
            ] as const) {
              const event = t.askEvent(asked.data.id)
              expect(event).toMatchObject({
                id: asked.data.id,
                itemID: asked.data.itemID,
                tool,
                action: tool,
                source: { type: "tool", messageID: expect.stringMatching(/^msg_/), callID: expect.any(String) },
                title: "",
                resources: [],
                save: [],
                metadata: {},
                input: {},
              })
              expect(event.tombstone.sha256).toMatch(/^[0-9a-f]{64}$/)
              expect([...event.tombstone.fields].sort()).toEqual(fields)
              const row = t.permissionRow(asked.data.id)
              expect(row.reply).toBe("once")
              expect(JSON.parse(row.data)).toMatchObject({
                id: asked.data.id,
                title: "",
                resources: [],
                save: [],
                metadata: {},
                input: {},
              })
            }
            // The live call's ask is untouched, in the journal and in the projection.
            expect(t.permissionRow(kept!.data.id)).toEqual(keptRow)
            expect(t.askEvent(kept!.data.id)).toEqual(keptEvent)
            // Counted like the other erased events.
            const tombstoned = t.database.client
              .query("SELECT data FROM event WHERE aggregate_id = ? AND data LIKE '%\"tombstone\"%'")
              .all(t.sessionID) as Array<{ data: string }>
            expect(summary.events).toBe(tombstoned.length)
            expect(summary.fields).toBe(
              tombstoned.reduce((sum, { data }) => sum + JSON.parse(data).tombstone.fields.length, 0),
            )
            expect(summary.bytes).toBeGreaterThan(SECRET.length)

            expect(t.replayed()).toEqual(projectionSnapshot(t.database.client))
            // Idempotent: nothing left to erase, nothing recorded.
            expect(yield* t.erase()).toMatchObject({ events: 0, fields: 0, bytes: 0 })
            return t.database.path
          }),
        )
        // Closed, the host leaves no copy behind in the database files either.
        expect(scan(path)).toBe(0)
      }),
  )

  it.live("pruned tool calls take their asks along; an `always` grant recorded by an erased ask asks again", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      const [granted] = yield* t.turn([bash(SECRET_COMMAND)], 1, "always")
      // The grant covers the same command: it runs without asking.
      yield* t.turn([bash(SECRET_COMMAND)], 0)
      expect((yield* t.toolItems()).map(({ item }) => item.state.status)).toEqual(["completed", "completed"])
      const pruned = yield* t.run(
        Prune.use((p) => p.session({ sessionID: t.sessionID, types: ["tool"], by: "plugin:redactor" })),
      )
      expect(pruned.items).toBe(2)

      yield* t.erase()
      expect(scan(t.database.path)).toBe(0)
      expect(JSON.parse(t.permissionRow(granted!.data.id).data)).toMatchObject({ resources: [], save: [] })
      expect(t.replayed()).toEqual(projectionSnapshot(t.database.client))

      // The grant held the secret as its pattern: it went with it, so the same call is asked again.
      const [again] = yield* t.turn([bash(SECRET_COMMAND)], 1)
      expect(again!.data.resources).toEqual([SECRET_SUBJECT])
    }),
  )

  it.live("a deleted session's asks are erased whole", () =>
    Effect.gen(function* () {
      const t = yield* setup()
      yield* t.turn([bash(SECRET_COMMAND)], 1)
      yield* t.run(Execution.use((e) => e.remove(t.sessionID)))
      const summary = yield* t.erase()
      expect(summary.events).toBeGreaterThan(0)
      expect(scan(t.database.path)).toBe(0)
      const asked = t.database.client
        .query("SELECT data FROM event WHERE aggregate_id = ? AND type = 'permission.v2.asked'")
        .all(t.sessionID) as Array<{ data: string }>
      expect(asked).toHaveLength(1)
      expect(JSON.parse(asked[0]!.data)).toMatchObject({ title: "", resources: [], save: [], metadata: {}, input: {} })
    }),
  )
})
