import type { PreflightEvent, PromisePlugin } from "@opencode-ai/plugin"
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { SessionEvent } from "../src/domain/event.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { RESTART_NOTICE } from "../src/turn/restart.ts"
import { Session } from "../src/session/session.ts"
import { makeHost } from "./support/host.ts"
import { startHostChild } from "./support/host-process.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel } from "./support/provider-config.ts"
import { tempDb, tempDir } from "./support/tmp.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

type Call = PreflightEvent | { readonly context: string }

const recorder = (calls: Array<Call>): PromisePlugin => ({
  id: "recorder",
  setup(ctx) {
    ctx.session.hook("preflight", (event) => void calls.push({ ...event }))
    ctx.session.hook("context", (event) => void calls.push({ context: event.sessionID }))
  },
})

const callsOf = (calls: Array<Call>, sessionID: string) =>
  calls.filter((c) => ("context" in c ? c.context : c.sessionID) === sessionID)

/** Starts a host in a child process, prompts, and SIGKILLs it while the provider holds mid-stream. */
const killMidStream = async (database: string, directory: string, prompts: Array<string>) => {
  const aborted = server.aborted
  for (const _ of prompts) server.enqueue({ text: "working on it, step one of many", hold: true })
  const { child, sessions } = await startHostChild({ database, directory, config: localModel(server), prompts })
  // Every session's request must be mid-stream (and no scripted reply left over) before the kill.
  await server.held(prompts.length)
  child.kill("SIGKILL")
  await child.exited
  await server.waitForAborted(aborted + prompts.length)
  return { sessions }
}

describe("restart resume", () => {
  it("after SIGKILL mid-stream, each claimed session gets the notice and resumes with preflight reason resume before context", async () => {
    const database = tempDb()
    const directory = tempDir()
    const { sessions } = await killMidStream(database, directory, ["first session", "second session"])
    const calls: Array<Call> = []
    server.reply(() => ({ text: "resumed fine" }))
    const host = makeHost({
      database,
      directory,
      config: localModel(server),
      plugins: [{ source: "inline:recorder", plugin: recorder(calls) }],
    })
    const result = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        for (const id of sessions) yield* execution.wait(id)
        return yield* Effect.forEach(sessions, (id) =>
          Effect.gen(function* () {
            return {
              info: yield* session.get(id),
              items: (yield* session.messages(id)).data,
              claim: session.sync.claimed(id),
            }
          }),
        )
      }),
    )
    for (const { info, items, claim } of result) {
      expect(info.status).toBe("idle")
      expect(claim).toBeUndefined()
      // The answer the kill cut off is closed as interrupted (partial text kept), never left dangling.
      const cutOff = items.find((m) => m.type === "assistant") as AssistantMessage
      expect(cutOff.time.completed).toBeDefined()
      expect(cutOff).toMatchObject({ finish: "interrupted", error: { name: "Interrupted" } })
      const notice = items.find((m) => m.type === "synthetic")!
      expect(notice).toMatchObject({ origin: "host", text: RESTART_NOTICE })
      const last = items.at(-1) as AssistantMessage
      expect(last.content[0]).toMatchObject({ type: "text", text: "resumed fine" })
      expect(last.seq).toBeGreaterThan(notice.seq)
    }
    // Each resumed session's first request ran preflight(resume) before its context.
    for (const id of sessions) {
      const [first, second] = callsOf(calls, id)
      expect(first).toMatchObject({ sessionID: id, reason: "resume", step: 1 })
      expect(second).toEqual({ context: id })
    }
    server.reply(() => ({ text: "ok" }))
    await host.dispose()
  })

  it("with auto-resume off, claimed sessions stay suspended and busy until resumed through the API", async () => {
    const database = tempDb()
    const directory = tempDir()
    const { sessions } = await killMidStream(database, directory, ["only"])
    const sessionID = sessions[0]!
    const host = makeHost({ database, directory, config: localModel(server), autoResume: false })
    const result = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const before = (yield* session.get(sessionID)).status
        const user = (yield* session.messages(sessionID)).data[0]!
        const busy = yield* Effect.exit(mutation.retract({ sessionID, messageID: user.id, by: "user" }))
        const countBefore = (yield* session.messages(sessionID)).data.length
        const resumed = yield* execution.resume(sessionID)
        yield* execution.wait(sessionID)
        const items = (yield* session.messages(sessionID)).data
        return { before, busy, countBefore, resumed, items, after: (yield* session.get(sessionID)).status }
      }),
    )
    expect(result.before).toBe("suspended")
    expect(Exit.isFailure(result.busy) && JSON.stringify(result.busy.cause)).toContain("Session.BusyError")
    expect(result.resumed).toEqual({ resumed: true })
    // A message-free resume adds no user or synthetic message: only the model's answer.
    const added = result.items.slice(result.countBefore)
    expect(added.map((m) => m.type)).toEqual(["assistant"])
    expect(result.after).toBe("idle")
    await host.dispose()
  })

  it("counts resume attempts durably and gives up after the cap, releasing the claim", async () => {
    const database = tempDb()
    const directory = tempDir()
    // A claim that has already been resumed twice (as if two restarts died mid-turn).
    const seeded = makeHost({ database, directory, autoResume: false })
    const sessionID = await seeded.run(
      Effect.gen(function* () {
        const session = yield* Session
        const bus = yield* Bus
        const info = yield* session.create({ directory })
        yield* bus.commit(info.id, [
          draft(SessionEvent.TurnStarted, { turnID: "trn_seeded", reason: "prompt" }),
          draft(SessionEvent.TurnResumed, { turnID: "trn_seeded", attempt: 1 }),
          draft(SessionEvent.TurnResumed, { turnID: "trn_seeded", attempt: 2 }),
        ])
        return info.id
      }),
    )
    await seeded.dispose()
    const host = makeHost({ database, directory, config: { server: { resumeAttempts: 2 } } })
    const result = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        // The resume runs in the background after start; `wait` waits for it to be decided.
        yield* (yield* Execution).wait(sessionID)
        return { info: yield* session.get(sessionID), claim: session.sync.claimed(sessionID) }
      }),
    )
    expect(result.claim).toBeUndefined()
    expect(result.info.status).toBe("idle")
    await host.dispose()

    // Below the cap the attempt is counted and the turn continues.
    const again = makeHost({ database, directory, autoResume: false })
    const count = await again.run(
      Effect.gen(function* () {
        const bus = yield* Bus
        const session = yield* Session
        yield* bus.commit(sessionID, [draft(SessionEvent.TurnStarted, { turnID: "trn_two", reason: "prompt" })])
        const execution = yield* Execution
        yield* execution.resume(sessionID)
        const attempts = session.sync.claimed(sessionID)?.attempts
        yield* execution.wait(sessionID)
        return attempts
      }),
    )
    expect(count).toBe(1)
    await again.dispose()
  })

  it("a graceful stop mid-turn keeps the claim, so the next start resumes the turn", async () => {
    const database = tempDb()
    const directory = tempDir()
    const first = makeHost({ database, directory, config: localModel(server) })
    const held = server.held()
    server.enqueue({ text: "long answer", hold: true })
    const sessionID = await first.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "go" } })
        return info.id
      }),
    )
    await held
    const aborted = server.aborted
    await first.dispose()
    await server.waitForAborted(aborted + 1)
    const calls: Array<Call> = []
    const second = makeHost({
      database,
      directory,
      config: localModel(server),
      plugins: [{ source: "inline:recorder", plugin: recorder(calls) }],
    })
    const items = await second.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        yield* execution.wait(sessionID)
        return (yield* session.messages(sessionID)).data
      }),
    )
    expect(items.map((m) => m.type)).toEqual(["user", "assistant", "synthetic", "assistant"])
    expect((items[1] as AssistantMessage).error?.name).toBe("Interrupted")
    expect(calls[0]).toMatchObject({ sessionID, reason: "resume" })
    await second.dispose()
  })
})
