/**
 * Retracting queued input races its delivery at the turn boundary; both are decided in one transaction,
 * so each queued prompt ends exactly one way. Four sessions, 40 prompts each fired concurrently, and
 * retractions fired at random moments (seeded) while turns run (offline provider, journal on). Afterwards:
 * a prompt that was never delivered (no `session.next.prompt.admitted`) is in the transcript retracted and its
 * text was never answered; a delivered prompt was answered unless retracted later; every retraction is
 * `ok` or `busy` (delivery won and a turn holds the session), never anything else; sessions end idle with an
 * empty inbox; and the journal replays to the live rows.
 */
import { Effect, Random } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Execution } from "../src/turn/execution.ts"
import type { Message } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { testHost } from "./support/host.ts"

const SESSIONS = 4
const PROMPTS = 40
const SEED = Number(process.env.STRESS_SEED ?? 20261129)

const textOf = (message: Message) =>
  message.type === "assistant" ? message.content.map((p) => (p.type === "text" ? p.text : "")).join("") : ""

describe("retracting queued input while turns run", () => {
  it.live(
    `each queued prompt is either delivered or retracted, never both unseen (${SESSIONS}x${PROMPTS} prompts, seed ${SEED})`,
    () => {
      const host = testHost({ config: { events: { persist: true } } })
      return Effect.gen(function* () {
        const outcomes = { ok: 0, busy: 0 }
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const mutation = yield* Mutation
          const ids = yield* Effect.forEach(Array.from({ length: SESSIONS }), () =>
            session.create({ directory: host.directory }),
          )
          const prompts = new Map<string, string>()
          yield* Effect.forEach(
            ids,
            (info) =>
              Effect.forEach(
                Array.from({ length: PROMPTS }, (_, i) => i),
                (i) =>
                  Effect.gen(function* () {
                    const marker = `${info.id}-prompt-${i}`
                    const { id: messageID } = yield* execution.prompt({ sessionID: info.id, prompt: { text: marker } })
                    prompts.set(messageID, marker)
                    if ((yield* Random.nextIntBetween(0, 3)) === 0) return
                    const pause = yield* Random.nextIntBetween(0, 40)
                    for (let k = 0; k < pause; k++) yield* Effect.yieldNow
                    const retracted = yield* Effect.result(
                      mutation.retract({ sessionID: info.id, messageID, by: "user" }),
                    )
                    if (retracted._tag === "Success") outcomes.ok++
                    else if (retracted.failure._tag === "Session.BusyError") outcomes.busy++
                    else throw new Error(`unexpected retraction failure: ${retracted.failure._tag}`)
                  }),
                { concurrency: "unbounded" },
              ),
            { concurrency: "unbounded" },
          )
          for (const info of ids) yield* execution.wait(info.id)
          const transcripts = new Map<string, ReadonlyArray<Message>>(
            ids.map((info) => [info.id, session.sync.transcript(info.id)]),
          )
          return {
            ids: ids.map((i) => i.id),
            prompts,
            transcripts,
            idle: ids.map((i) => [session.sync.claimed(i.id), session.sync.inbox(i.id)]),
          }
        }).pipe(Random.withSeed(SEED))
        const database = Database.open(host.database)
        const admitted = new Set(
          database.client
            .query<{ id: string }, []>(
              "SELECT json_extract(data, '$.messageID') AS id FROM event WHERE type = 'session.next.prompt.admitted'",
            )
            .all()
            .map((row) => row.id),
        )
        let cancelled = 0
        for (const [messageID, marker] of result.prompts) {
          const sessionID = marker.slice(0, marker.indexOf("-prompt-"))
          const transcript = result.transcripts.get(sessionID)!
          const message = transcript.find((m) => m.id === messageID)
          expect(message, marker).toBeDefined()
          const answered = transcript.some((m) => m.type === "assistant" && textOf(m) === `You said: ${marker}`)
          if (!admitted.has(messageID)) {
            // Retracted while queued: delivery was cancelled, the model never saw it.
            expect(message!.retracted, marker).toBeDefined()
            expect(answered, marker).toBe(false)
            cancelled++
          } else if (!message!.retracted) {
            expect(answered, marker).toBe(true)
          }
        }
        for (const [claim, inbox] of result.idle) {
          expect(claim).toBeUndefined()
          expect(inbox).toEqual([])
        }
        // The race was real: some retractions cancelled a delivery, some met a turn that already held the session.
        expect(cancelled, JSON.stringify(outcomes)).toBeGreaterThan(0)
        expect(outcomes.busy, JSON.stringify(outcomes)).toBeGreaterThan(0)
        const target = Database.open(":memory:")
        replay(database.client, target, makeSessionProjector(target.client))
        expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(database.client))
        target.client.close()
        database.client.close()
      }).pipe(Effect.provide(host.layer))
    },
  )
})
