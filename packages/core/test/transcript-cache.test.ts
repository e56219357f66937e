/**
 * The transcript cache (`session/transcript-cache.ts`) must always answer what the table holds. After
 * every kind of change (turns with reasoning and tool calls, queued input, correction, retraction, part
 * removal, prune, compaction) the cached transcript equals a fresh parse of `session_message`, and the
 * model messages built from it (remembered per message object) equal those built from the fresh parse; so
 * it does after commits it never heard of (another connection writing the same file), after a gap in the
 * events it saw, and for more sessions than it keeps.
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Bus } from "../src/bus/bus.ts"
import { draft } from "../src/bus/event.ts"
import { ascending } from "../src/id/id.ts"
import { SessionEvent } from "../src/domain/event.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { Prune } from "../src/maintenance/prune.ts"
import { Session } from "../src/session/session.ts"
import { TRANSCRIPT_CACHE_SESSIONS } from "../src/session/transcript-cache.ts"
import { toModelMessages } from "../src/turn/transcript.ts"
import { Database } from "../src/storage/database.ts"
import { StoreLayer } from "../src/host.ts"
import { testHost } from "./support/host.ts"

/** The transcript straight from the table, parsed afresh. */
const fromTable = (client: Database["Service"]["client"], sessionID: string): ReadonlyArray<Message> =>
  client
    .query<{ data: string }, [string]>("SELECT data FROM session_message WHERE session_id = ? ORDER BY seq")
    .all(sessionID)
    .map((row) => JSON.parse(row.data) as Message)

const notice = (text: string) =>
  draft(SessionEvent.Synthetic, { messageID: ascending("msg"), text, origin: "plugin:elsewhere" })

describe("the transcript cache", () => {
  it.live("matches the table after every kind of change", () => {
    const host = testHost()
    return Effect.gen(function* () {
      yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const prune = yield* Prune
        const { client } = yield* Database
        const info = yield* session.create({ directory: host.directory })
        const sessionID = info.id
        const check = (label: string) => {
          const fresh = fromTable(client, sessionID)
          expect(session.sync.transcript(sessionID), label).toEqual(fresh)
          // The model messages are remembered per message object; a changed message must be converted anew.
          expect(toModelMessages(session.sync.transcript(sessionID)), `${label}: model messages`).toEqual(
            toModelMessages(structuredClone(fresh)),
          )
        }
        check("empty")
        yield* execution.prompt({ sessionID, prompt: { text: "/think pondering\n/tool list {}" } })
        check("right after admission")
        // Queued behind the running turn, then delivered at its boundary.
        yield* execution.prompt({ sessionID, prompt: { text: "second" } })
        yield* execution.synthetic({ sessionID, text: "a quiet notice", origin: "host", resume: false })
        yield* execution.wait(sessionID)
        check("after two turns with reasoning and a tool call")
        const transcript = session.sync.transcript(sessionID)
        const prompt = transcript.find((m) => m.type === "user")!
        yield* mutation.correct({ sessionID, messageID: prompt.id, text: "/think corrected", by: "user" })
        check("after a correction")
        const quiet = transcript.find((m) => m.type === "synthetic")!
        yield* mutation.retract({ sessionID, messageID: quiet.id, by: "user" })
        check("after a retraction")
        const answer = transcript.find(
          (m) => m.type === "assistant" && m.content.some((p) => p.type === "reasoning"),
        ) as AssistantMessage
        yield* mutation.removeItem({
          sessionID,
          messageID: answer.id,
          itemID: answer.content.find((p) => p.type === "reasoning")!.id,
          by: "user",
        })
        check("after an item removal")
        yield* prune.session({ sessionID, types: ["tool", "reasoning"], by: "user" })
        check("after a prune")
        yield* execution.compact(sessionID)
        yield* execution.wait(sessionID)
        expect(session.sync.transcript(sessionID).some((m) => m.type === "compaction")).toBe(true)
        check("after a compaction")
        yield* execution.prompt({ sessionID, prompt: { text: "after the summary" } })
        yield* execution.wait(sessionID)
        check("after a turn past the compaction")
        yield* execution.remove(sessionID)
        expect(session.sync.transcript(sessionID)).toEqual([])
      })
    }).pipe(Effect.provide(host.layer))
  })

  it.live("sees commits made through another connection, and events it missed", () => {
    const host = testHost()
    return Effect.gen(function* () {
      const session = yield* Session
      const execution = yield* Execution
      const bus = yield* Bus
      const { client } = yield* Database
      const info = yield* session.create({ directory: host.directory })
      const sessionID = info.id
      yield* execution.prompt({ sessionID, prompt: { text: "hello" } })
      yield* execution.wait(sessionID)
      expect(session.sync.transcript(sessionID)).toHaveLength(2)

      // Another process (here: another connection with its own bus, closed before the host) commits to the
      // same session. Its layers are built afresh: it shares none of the host's (its projectors above all).
      const other = yield* Layer.buildWithMemoMap(
        StoreLayer({ path: host.database, persist: false }),
        yield* Layer.makeMemoMap,
        yield* Effect.scope,
      )
      yield* Effect.gen(function* () {
        const elsewhere = yield* Bus
        yield* elsewhere.commit(sessionID, [notice("from afar")])
      }).pipe(Effect.provide(other))
      expect(session.sync.transcript(sessionID)).toEqual(fromTable(client, sessionID))
      expect(session.sync.transcript(sessionID)).toHaveLength(3)

      // A commit the cache never saw, then one it sees: the gap makes it read the table again.
      yield* Effect.gen(function* () {
        const elsewhere = yield* Bus
        yield* elsewhere.commit(sessionID, [notice("unseen")])
      }).pipe(Effect.provide(other))
      yield* bus.commit(sessionID, [notice("seen")])
      expect(session.sync.transcript(sessionID)).toEqual(fromTable(client, sessionID))
      expect(
        session.sync
          .transcript(sessionID)
          .map((m) => (m.type === "synthetic" ? m.text : undefined))
          .slice(-3),
      ).toEqual(["from afar", "unseen", "seen"])

      // More sessions than the cache keeps: the evicted ones are read again, correctly.
      const many = yield* Effect.forEach(Array.from({ length: TRANSCRIPT_CACHE_SESSIONS + 4 }), (_, i) =>
        Effect.gen(function* () {
          const created = yield* session.create({ directory: host.directory })
          yield* bus.commit(created.id, [notice(`session ${i}`)])
          expect(session.sync.transcript(created.id)).toHaveLength(1)
          return created.id
        }),
      )
      for (const id of [sessionID, ...many]) {
        yield* bus.commit(id, [notice("one more")])
        expect(session.sync.transcript(id)).toEqual(fromTable(client, id))
      }
    }).pipe(Effect.scoped, Effect.provide(host.layer))
  })
})
