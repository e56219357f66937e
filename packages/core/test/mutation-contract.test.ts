import { Effect, Exit } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { Database } from "../src/storage/database.ts"
import { projectionSnapshot } from "../src/bus/replay.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { Session } from "../src/session/session.ts"
import { testHost } from "./support/host.ts"
import { startOpenAIServer, type OpenAIServer } from "./support/openai-server.ts"
import { localModel, requestText } from "./support/provider-config.ts"

let server: OpenAIServer
beforeAll(async () => {
  server = await startOpenAIServer()
})
afterAll(() => server.close())

const failure = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit)
    ? (exit.cause.reasons.find((r) => r._tag === "Fail") as { error: unknown } | undefined)?.error
    : undefined

describe("the mutation contract in core", () => {
  it.live("corrects a notice: same ids and role, stored and next request carry only the new text", () => {
    const host = testHost({ config: localModel(server) })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const info = yield* session.create({ directory: host.directory })
        const { id: messageID } = yield* execution.synthetic({
          sessionID: info.id,
          text: "Reminder: the deploy is at 5pm",
          origin: "plugin:reminders",
          resume: false,
        })
        const before = yield* session.message(info.id, messageID)
        const updated = yield* mutation.correct({
          sessionID: info.id,
          messageID,
          text: "Reminder: the deploy moved to 6pm",
          by: "plugin:reminders",
        })
        const marker = server.requests.length
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "when is the deploy?" } })
        yield* execution.wait(info.id)
        return { before, updated, stored: yield* session.message(info.id, messageID), request: server.requests[marker] }
      })
      expect(result.updated).toEqual(result.stored)
      expect(result.updated.id).toBe(result.before.id)
      expect(result.updated.seq).toBe(result.before.seq)
      expect(result.updated.type).toBe("synthetic")
      expect(result.updated.origin).toBe("plugin:reminders")
      expect(result.before).toMatchObject({ type: "synthetic", text: "Reminder: the deploy is at 5pm" })
      expect(result.before.corrected).toBeUndefined()
      expect(result.updated).toMatchObject({ type: "synthetic", text: "Reminder: the deploy moved to 6pm" })
      expect(result.updated.corrected).toMatchObject({ by: "plugin:reminders" })
      expect(requestText(result.request)).toContain("the deploy moved to 6pm")
      expect(requestText(result.request)).not.toContain("5pm")
    }).pipe(Effect.provide(host.layer))
  })

  it.live("retracts a notice behind the host placeholder; the model sees neither text nor substitute", () => {
    const host = testHost({ config: localModel(server) })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const info = yield* session.create({ directory: host.directory })
        const { id: messageID } = yield* execution.synthetic({
          sessionID: info.id,
          text: "STALE-NOTICE child task finished",
          origin: "plugin:children",
          resume: false,
        })
        const before = yield* session.message(info.id, messageID)
        const retracted = yield* mutation.retract({ sessionID: info.id, messageID, by: "plugin:children" })
        const again = yield* mutation.retract({ sessionID: info.id, messageID, by: "plugin:children" })
        const marker = server.requests.length
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "status?" } })
        yield* execution.wait(info.id)
        return {
          before,
          retracted,
          again,
          request: server.requests[marker],
          list: (yield* session.messages(info.id)).data,
        }
      })
      expect(result.retracted).toMatchObject({
        id: result.before.id,
        seq: result.before.seq,
        type: "synthetic",
        origin: "plugin:children",
        text: "",
      })
      expect(result.retracted.placeholder).toBe("[A notice was retracted.]")
      expect(result.retracted.retracted).toMatchObject({ by: "plugin:children" })
      expect(result.again).toEqual(result.retracted)
      expect(result.list[0]).toEqual(result.retracted)
      expect(requestText(result.request)).not.toContain("STALE-NOTICE")
      expect(requestText(result.request)).not.toContain("retracted")
    }).pipe(Effect.provide(host.layer))
  })

  it.live(
    "prunes a tool item and removes a reasoning item: the next request lacks them, the row shrinks by at least their payload",
    () => {
      const host = testHost({ config: localModel(server) })
      return Effect.gen(function* () {
        const bulky = "B".repeat(20_000)
        server.enqueue(
          {
            reasoning: `thinking ${"R".repeat(5_000)}`,
            text: "listing",
            toolCalls: [{ id: "call_big", name: "bash_missing", arguments: { blob: bulky } }],
          },
          { text: "done" },
        )
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const mutation = yield* Mutation
          const { client } = yield* Database
          const info = yield* session.create({ directory: host.directory })
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "go" } })
          yield* execution.wait(info.id)
          const assistant = (yield* session.messages(info.id)).data[1] as AssistantMessage
          const size = () =>
            (
              client.query("SELECT length(data) AS n FROM session_message WHERE id = ?").get(assistant.id) as {
                n: number
              }
            ).n
          const sizeBefore = size()
          const tool = assistant.content.find((p) => p.type === "tool")!
          const reasoning = assistant.content.find((p) => p.type === "reasoning")!
          const payload = JSON.stringify(tool).length + JSON.stringify(reasoning).length
          yield* mutation.removeItem({ sessionID: info.id, messageID: assistant.id, itemID: tool.id, by: "user" })
          const updated = yield* mutation.removeItem({
            sessionID: info.id,
            messageID: assistant.id,
            itemID: reasoning.id,
            by: "user",
          })
          const marker = server.requests.length
          yield* execution.prompt({ sessionID: info.id, prompt: { text: "next" } })
          yield* execution.wait(info.id)
          return { assistant, updated, sizeBefore, sizeAfter: size(), payload, request: server.requests[marker] }
        })
        if (result.updated.type !== "assistant") throw new Error("expected the assistant message back")
        const before = result.assistant
        const tool = before.content.find((p) => p.type === "tool")!
        const reasoning = before.content.find((p) => p.type === "reasoning")!
        // The reasoning item leaves `content`; the tool item stays (same id, call id, name), emptied and marked.
        expect(result.updated.content.map((p) => p.type)).toEqual(["text", "tool"])
        expect(result.updated.content[0]!.id).toBe(before.content.find((p) => p.type === "text")!.id)
        const pruned = result.updated.content[1]!
        expect(pruned).toMatchObject({
          id: tool.id,
          type: "tool",
          callID: "call_big",
          name: "bash_missing",
          time: { pruned: expect.any(Number) },
          prunedBy: "user",
          state: { input: {}, content: [] },
        })
        expect(JSON.stringify(pruned)).not.toContain("BBBBBBBBBB")
        // The row keeps only the pruned tool item's shell and the removed reasoning id (`removed`, so a
        // repeated removal is a retry).
        expect(result.updated.removed).toEqual([reasoning.id])
        const kept = JSON.stringify(pruned).length + JSON.stringify({ removed: result.updated.removed }).length
        expect(result.sizeBefore - result.sizeAfter).toBeGreaterThanOrEqual(result.payload - kept)
        const sent = requestText(result.request)
        expect(sent).not.toContain("BBBBBBBBBB")
        expect(sent).not.toContain("RRRRRRRRRR")
        expect(sent).not.toContain("call_big")
      }).pipe(Effect.provide(host.layer))
    },
  )

  it.live("rejects unknown ids and wrong targets with typed errors, and commits nothing", () => {
    const host = testHost()
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const { client } = yield* Database
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hi\n/think hmm" } })
        yield* execution.wait(info.id)
        const [user, assistant] = (yield* session.messages(info.id)).data as [Message, AssistantMessage]
        const text = assistant.content.find((p) => p.type === "text")!
        const reasoning = assistant.content.find((p) => p.type === "reasoning")!
        const before = projectionSnapshot(client)
        const by = "user"
        const exits = {
          unknownSession: yield* Effect.exit(mutation.retract({ sessionID: "ses_nope", messageID: user.id, by })),
          unknownMessage: yield* Effect.exit(mutation.retract({ sessionID: info.id, messageID: "msg_nope", by })),
          unknownItem: yield* Effect.exit(
            mutation.correct({ sessionID: info.id, messageID: assistant.id, itemID: "prt_nope", text: "x", by }),
          ),
          unknownRemoval: yield* Effect.exit(
            mutation.removeItem({ sessionID: info.id, messageID: assistant.id, itemID: "prt_nope", by }),
          ),
          retractAssistant: yield* Effect.exit(mutation.retract({ sessionID: info.id, messageID: assistant.id, by })),
          correctReasoning: yield* Effect.exit(
            mutation.correct({ sessionID: info.id, messageID: assistant.id, itemID: reasoning.id, text: "x", by }),
          ),
          correctAssistantWithoutItem: yield* Effect.exit(
            mutation.correct({ sessionID: info.id, messageID: assistant.id, text: "x", by }),
          ),
          correctUserItem: yield* Effect.exit(
            mutation.correct({ sessionID: info.id, messageID: user.id, itemID: text.id, text: "x", by }),
          ),
          removeText: yield* Effect.exit(
            mutation.removeItem({ sessionID: info.id, messageID: assistant.id, itemID: text.id, by }),
          ),
          removeFromUser: yield* Effect.exit(
            mutation.removeItem({ sessionID: info.id, messageID: user.id, itemID: text.id, by }),
          ),
          emptyCorrection: yield* Effect.exit(
            mutation.correct({ sessionID: info.id, messageID: user.id, text: "", by }),
          ),
        }
        return { exits, before, after: projectionSnapshot(client) }
      })
      expect(failure(result.exits.unknownSession)).toMatchObject({ _tag: "Session.NotFoundError" })
      expect(failure(result.exits.unknownMessage)).toMatchObject({
        _tag: "Session.MessageNotFoundError",
        messageID: "msg_nope",
      })
      for (const key of ["unknownItem", "unknownRemoval"] as const) {
        expect(failure(result.exits[key])).toMatchObject({ _tag: "Session.ItemNotFoundError", itemID: "prt_nope" })
      }
      for (const key of [
        "retractAssistant",
        "correctReasoning",
        "correctAssistantWithoutItem",
        "correctUserItem",
        "removeText",
        "removeFromUser",
      ] as const) {
        expect(failure(result.exits[key])).toMatchObject({
          _tag: "Session.InvalidTargetError",
          reason: expect.any(String),
        })
      }
      expect(failure(result.exits.emptyCorrection)).toMatchObject({ _tag: "Session.InvalidInputError", field: "text" })
      expect(result.after).toEqual(result.before)
    }).pipe(Effect.provide(host.layer))
  })

  it.live("while a turn holds the claim every mutation is busy and rows and journal stay byte-identical", () => {
    const host = testHost({ config: localModel(server, { events: { persist: true } }) })
    return Effect.gen(function* () {
      server.enqueue({ text: "first" }, { text: "held answer", hold: true })
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const { client } = yield* Database
        const info = yield* session.create({ directory: host.directory })
        const { id: messageID } = yield* execution.synthetic({ sessionID: info.id, text: "notice", origin: "plugin:x" })
        yield* execution.wait(info.id)
        const notice = yield* session.message(info.id, messageID)
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hold please" } })
        yield* Effect.promise(() => server.held())
        const rows = projectionSnapshot(client)
        const journal = client.query("SELECT * FROM event ORDER BY position").all()
        const by = "plugin:x"
        const exits = [
          yield* Effect.exit(mutation.correct({ sessionID: info.id, messageID, text: "new", by })),
          yield* Effect.exit(mutation.retract({ sessionID: info.id, messageID, by })),
          yield* Effect.exit(
            mutation.removeItem({ sessionID: info.id, messageID: "msg_unknown", itemID: "prt_x", by }),
          ),
        ]
        const same = {
          rows: projectionSnapshot(client),
          journal: client.query("SELECT * FROM event ORDER BY position").all(),
        }
        server.release()
        yield* execution.wait(info.id)
        const retry = yield* mutation.retract({ sessionID: info.id, messageID, by })
        return { exits, rows, journal, same, retry, notice }
      })
      for (const exit of result.exits) expect(failure(exit)).toMatchObject({ _tag: "Session.BusyError" })
      expect(result.same.rows).toEqual(result.rows)
      expect(result.same.journal).toEqual(result.journal)
      expect(result.retry).toMatchObject({
        id: result.notice.id,
        seq: result.notice.seq,
        placeholder: "[A notice was retracted.]",
      })
    }).pipe(Effect.provide(host.layer))
  })
})
