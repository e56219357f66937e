/**
 * Core on plain Node, through the Node platform layer (sql.js, child_process, picomatch): sessions and a
 * turn with tools, the mutation contract, replay of the journal and erasure, on real SQLite files.
 * Compiled to JavaScript by `script/node-test.ts` and run by `node --test` (vitest does not start on
 * Node 20); the first test makes sure it really is Node and its platform, never Bun's by default.
 */
import assert from "node:assert/strict"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { after, describe, it } from "node:test"
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import { projectionSnapshot, replay } from "../../src/bus/replay.ts"
import { HostLayer, type HostServices } from "../../src/host.ts"
import { Glob } from "../../src/platform/glob.ts"
import { Modules } from "../../src/platform/modules.ts"
import { NodePlatform } from "../../src/platform/node.ts"
import { Processes } from "../../src/platform/processes.ts"
import { Sqlite } from "../../src/platform/sqlite.ts"
import { PluginHost } from "../../src/plugin/host.ts"
import { Erase } from "../../src/maintenance/erase.ts"
import { Execution } from "../../src/turn/execution.ts"
import type { AssistantMessage } from "../../src/domain/message.ts"
import { Mutation } from "../../src/maintenance/mutation.ts"
import { makeSessionProjector } from "../../src/session/projector.ts"
import { Session } from "../../src/session/session.ts"
import { Database } from "../../src/storage/database.ts"

const made: Array<string> = []
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "oc2-node-"))
  made.push(dir)
  return dir
}

/** A whole host on the Node platform. `provideMerge`, so what runs later (tools) sees the platform too. */
const nodeHost = (database: string, directory: string, plugin?: ReadonlyArray<string>) => {
  const runtime = ManagedRuntime.make(
    HostLayer({
      database,
      config: {
        data: { permission: { bash: "allow" }, events: { persist: true }, ...(plugin ? { plugin: [...plugin] } : {}) },
        directory,
      },
    }).pipe(Layer.provideMerge(NodePlatform)),
  )
  return {
    run: <A, E>(effect: Effect.Effect<A, E, HostServices>) => runtime.runPromise(effect),
    dispose: () => runtime.dispose(),
  }
}

const SQLITE_HEADER = "SQLite format 3\u0000"

describe("core on Node", () => {
  it("runs on Node with the Node platform, not Bun's", async () => {
    assert.equal(typeof (globalThis as { Bun?: unknown }).Bun, "undefined")
    assert.ok(process.versions.node)
    const runtimes = await Effect.runPromise(
      Effect.gen(function* () {
        return [(yield* Sqlite).runtime, (yield* Processes).runtime, (yield* Glob).runtime, (yield* Modules).runtime]
      }).pipe(Effect.provide(NodePlatform)),
    )
    assert.deepEqual(runtimes, ["node", "node", "node", "node"])
    // Without the layer, the Bun default refuses instead of half-working.
    assert.throws(() => Database.open(":memory:"), /not running on Bun/)
  })

  it("loads a plugin package from the config directory's node_modules, found by Node's resolver", async () => {
    const directory = tempDir()
    const pkg = join(directory, "node_modules", "oc2-node-plugin")
    mkdirSync(join(pkg, "dist"), { recursive: true })
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "oc2-node-plugin", type: "module", exports: { ".": { default: "./dist/main.js" } } }),
    )
    writeFileSync(join(pkg, "dist", "main.js"), 'export default { id: "node-packaged", setup() {} }\n')
    const host = nodeHost(join(tempDir(), "opencode.db"), directory, ["oc2-node-plugin", "oc2-not-installed"])
    const statuses = await host.run(
      Effect.gen(function* () {
        return (yield* PluginHost).list()
      }),
    )
    await host.dispose()
    assert.deepEqual(
      statuses.map((s) => [s.source, s.status, s.id]),
      [
        ["oc2-node-plugin", "loaded", "node-packaged"],
        ["oc2-not-installed", "failed", undefined],
      ],
    )
  })

  it("runs a turn with read, glob and bash tools, and keeps the session in the SQLite file", async () => {
    const directory = tempDir()
    const database = join(tempDir(), "opencode.db")
    writeFileSync(join(directory, "notes.txt"), "first line of notes\n")
    const host = nodeHost(database, directory)
    const prompt = [
      "look around",
      '/tool read {"path":"notes.txt"}',
      '/tool glob {"pattern":"*.txt"}',
      `/tool bash ${JSON.stringify({ command: "echo from-bash-$((6 * 7)) && node -e 'process.exit(3)'" })}`,
    ].join("\n")
    const { sessionID, messages } = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: prompt } })
        yield* execution.wait(info.id)
        return { sessionID: info.id, messages: (yield* session.messages(info.id)).data }
      }),
    )
    await host.dispose()
    const tools = (messages[1] as AssistantMessage).content.flatMap((item) =>
      item.type === "tool" && item.state.status === "completed"
        ? [[item.name, item.state.content.map((c) => (c.type === "text" ? c.text : "")).join("")]]
        : [],
    )
    assert.deepEqual(
      tools.map(([name]) => name),
      ["read", "glob", "bash"],
    )
    assert.match(tools[0]![1]!, /first line of notes/)
    assert.match(tools[1]![1]!, /notes\.txt/)
    assert.match(tools[2]![1]!, /from-bash-42[\s\S]*exit code 3/)

    // The file is a real SQLite database: a new host (a new connection, a new sql.js instance) reads it back.
    assert.equal(readFileSync(database).subarray(0, 16).toString("latin1"), SQLITE_HEADER)
    const again = nodeHost(database, directory)
    const reread = await again.run(
      Effect.gen(function* () {
        return (yield* (yield* Session).messages(sessionID)).data
      }),
    )
    await again.dispose()
    assert.deepEqual(reread, messages)
  })

  it("corrects and retracts through the mutation contract; a wrong id is a typed error that commits nothing", async () => {
    const directory = tempDir()
    const host = nodeHost(join(tempDir(), "opencode.db"), directory)
    const result = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const database = yield* Database
        const info = yield* session.create({ directory })
        const notice = (text: string) =>
          execution.synthetic({ sessionID: info.id, text, origin: "plugin:notes", resume: false })
        const { id: first } = yield* notice("deploy at 5pm")
        const { id: second } = yield* notice("stale notice")
        const corrected = yield* mutation.correct({
          sessionID: info.id,
          messageID: first,
          text: "deploy at 6pm",
          by: "plugin:notes",
        })
        const retracted = yield* mutation.retract({ sessionID: info.id, messageID: second, by: "plugin:notes" })
        const before = projectionSnapshot(database.client)
        const events = (database.client.query("SELECT count(*) AS n FROM event").get() as { n: number }).n
        const wrong = yield* Effect.exit(mutation.retract({ sessionID: info.id, messageID: "msg_nope", by: "user" }))
        return {
          corrected,
          retracted,
          wrong,
          unchanged: events === (database.client.query("SELECT count(*) AS n FROM event").get() as { n: number }).n,
          same: JSON.stringify(before) === JSON.stringify(projectionSnapshot(database.client)),
          stored: yield* session.message(info.id, first),
        }
      }),
    )
    await host.dispose()
    assert.equal(result.corrected.type === "synthetic" && result.corrected.text, "deploy at 6pm")
    assert.deepEqual(result.stored, result.corrected)
    assert.ok(result.retracted.retracted)
    assert.ok(Exit.isFailure(result.wrong))
    assert.match(JSON.stringify(result.wrong.cause), /Session\.\w+Error/)
    assert.ok(result.unchanged && result.same)
  })

  it("replays the journal into an empty database to exactly the live projection", async () => {
    const directory = tempDir()
    const host = nodeHost(join(tempDir(), "opencode.db"), directory)
    const { live, replayed, applied } = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const database = yield* Database
        const sqlite = yield* Sqlite
        for (const text of ["one", '/tool glob {"pattern":"**/*"}', "three"]) {
          const info = yield* session.create({ directory })
          yield* execution.prompt({ sessionID: info.id, prompt: { text } })
          yield* execution.wait(info.id)
        }
        const target = Database.open(":memory:", sqlite)
        const applied = replay(database.client, target, makeSessionProjector(target.client))
        const replayed = projectionSnapshot(target.client)
        target.client.close()
        return { live: projectionSnapshot(database.client), replayed, applied }
      }),
    )
    await host.dispose()
    assert.ok(applied > 0)
    assert.deepEqual(replayed, live)
  })

  it("erases superseded content from the file, and an unknown session is the typed error", async () => {
    const directory = tempDir()
    const database = join(tempDir(), "opencode.db")
    const secret = "sk-node-erase-4b1d9e"
    const host = nodeHost(database, directory)
    const result = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const erase = yield* Erase
        const info = yield* session.create({ directory })
        const { id } = yield* execution.synthetic({
          sessionID: info.id,
          text: `the key is ${secret}`,
          origin: "plugin:notes",
          resume: false,
        })
        yield* mutation.correct({ sessionID: info.id, messageID: id, text: "the key is [rotated]", by: "user" })
        const before = readFileSync(database).includes(secret)
        const summary = yield* erase.session({ sessionID: info.id, by: "user" })
        const missing = yield* Effect.flip(erase.session({ sessionID: "ses_never", by: "user" }))
        return { before, summary, missing, stored: yield* session.message(info.id, id) }
      }),
    )
    await host.dispose()
    assert.ok(result.before, "the superseded text was in the file before the erase")
    assert.ok(result.summary.fields > 0)
    assert.equal(readFileSync(database).includes(secret), false)
    assert.equal(result.stored.type === "synthetic" && result.stored.text, "the key is [rotated]")
    assert.equal(result.missing._tag, "Session.NotFoundError")
  })
})
