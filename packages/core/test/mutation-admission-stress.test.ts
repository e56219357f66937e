import { Effect, Exit } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Bus, isDurable } from "../src/bus/bus.ts"
import type { Envelope } from "../src/bus/event.ts"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Execution } from "../src/turn/execution.ts"
import type { Message } from "../src/domain/message.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { testHost } from "./support/host.ts"

/** A small seeded PRNG so a failing interleaving can be reproduced from the printed seed. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const MUTATIONS = new Set([
  "session.next.text.corrected",
  "session.next.message.retracted",
  "session.next.tool.pruned",
  "session.next.reasoning.removed",
])
const EXPECTED_FAILURES = new Set([
  "Session.BusyError",
  "Session.InvalidTargetError",
  "Session.ItemNotFoundError",
  "Session.MessageNotFoundError",
])

describe("mutation and turn admission under concurrency", () => {
  it.live(
    "1,000 randomized interleavings: no mutation commits while a claim is held, no event lost, replay equals live",
    () => {
      const seed = Date.now() % 100_000
      const random = prng(seed)
      const host = testHost({ config: { events: { persist: true } } })
      return Effect.gen(function* () {
        const events: Array<Envelope> = []
        const outcomes = { ok: 0, busy: 0, other: 0 }
        const unexpected: Array<unknown> = []
        yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const mutation = yield* Mutation
          const bus = yield* Bus
          bus.subscribe((event) => {
            if (isDurable(event)) events.push(event)
          })
          const sessions = yield* Effect.forEach([0, 1, 2], () => session.create({ directory: host.directory }))
          const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(random() * items.length)]!
          const messagesOf = (sessionID: string) => session.sync.transcript(sessionID) as ReadonlyArray<Message>

          const operation = (client: number) =>
            Effect.gen(function* () {
              for (let k = Math.floor(random() * 4); k > 0; k--) yield* Effect.yieldNow
              const { id } = pick(sessions)
              const roll = random()
              const by = `plugin:client${client}`
              let attempt: Effect.Effect<unknown, { _tag: string }>
              if (roll < 0.12)
                attempt = execution.prompt({
                  sessionID: id,
                  prompt: { text: random() < 0.3 ? "look\n/think hmm\n/tool list {}" : `hello ${client}` },
                })
              else if (roll < 0.2)
                attempt = execution.synthetic({
                  sessionID: id,
                  text: `notice ${client}`,
                  origin: by,
                  resume: random() < 0.5,
                })
              else {
                const messages = messagesOf(id)
                if (messages.length === 0) return
                const message = pick(messages)
                // An assistant message's items are addressed by id; a user or synthetic message's own text
                // without one (and now and then with an id it does not have).
                const item =
                  message.type === "assistant" && message.content.length > 0 ? pick(message.content) : undefined
                const itemID = item?.id ?? (message.type === "assistant" || random() < 0.2 ? "prt_none" : undefined)
                if (roll < 0.5)
                  attempt = mutation.correct({
                    sessionID: id,
                    messageID: message.id,
                    ...(itemID !== undefined ? { itemID } : {}),
                    text: `corrected by ${client}`,
                    by,
                  })
                else if (roll < 0.75) attempt = mutation.retract({ sessionID: id, messageID: message.id, by })
                else
                  attempt = mutation.removeItem({
                    sessionID: id,
                    messageID: message.id,
                    itemID: itemID ?? "prt_none",
                    by,
                  })
              }
              const exit = yield* Effect.exit(attempt)
              if (Exit.isSuccess(exit)) outcomes.ok++
              else {
                const error = (
                  exit.cause.reasons.find((r) => r._tag === "Fail") as { error?: { _tag: string } } | undefined
                )?.error
                if (error?._tag === "Session.BusyError") outcomes.busy++
                else if (error && EXPECTED_FAILURES.has(error._tag)) outcomes.other++
                else unexpected.push(error ?? exit.cause)
              }
            })

          for (let round = 0; round < 1_000; round++) {
            yield* Effect.all(
              Array.from({ length: 4 }, (_, client) => operation(client)),
              { concurrency: "unbounded" },
            )
            // Now and then let the sessions drain, so mutations also meet idle sessions and the turn that
            // races them from the next round.
            if (round % 10 === 9) yield* Effect.forEach(sessions, (s) => execution.wait(s.id))
          }
          for (const s of sessions) yield* execution.wait(s.id)
        })
        expect(unexpected, `seed ${seed}`).toEqual([])
        // Both kinds of decision happened, and some mutations lost the race to a turn.
        expect(outcomes.ok, `seed ${seed}`).toBeGreaterThan(100)
        expect(outcomes.busy, `seed ${seed}`).toBeGreaterThan(0)
        expect(outcomes.other, `seed ${seed}`).toBeGreaterThan(0)

        const bySession = new Map<string, Array<Envelope>>()
        for (const event of events) bySession.set(event.sessionID, [...(bySession.get(event.sessionID) ?? []), event])
        let mutationsSeen = 0
        for (const [sessionID, list] of bySession) {
          // No event lost: the subscriber saw every seq from the creation on, without a gap.
          expect(
            list.map((e) => e.seq),
            `seed ${seed} ${sessionID}`,
          ).toEqual(list.map((_, i) => i + 1))
          let held = false
          for (const event of list) {
            if (event.type === "session.next.turn.started") held = true
            if (event.type === "session.next.turn.ended") held = false
            if (MUTATIONS.has(event.type)) {
              mutationsSeen++
              expect(held, `seed ${seed}: ${event.type} at seq ${event.seq} while the claim was held`).toBe(false)
            }
          }
          expect(held).toBe(false)
        }
        expect(mutationsSeen).toBeGreaterThan(0)

        const live = yield* Effect.gen(function* () {
          return yield* Database
        })
        const target = Database.open(":memory:")
        replay(live.client, target, makeSessionProjector(target.client))
        expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(live.client))
        target.client.close()
      }).pipe(Effect.provide(host.layer))
    },
  )
})
