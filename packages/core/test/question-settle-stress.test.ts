import { Database as SQLite } from "bun:sqlite"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { projectionSnapshot, replay } from "../src/bus/replay.ts"
import { Questions, type QuestionOutcome } from "../src/question/question.ts"
import { makeSessionProjector } from "../src/session/projector.ts"
import { Session } from "../src/session/session.ts"
import { Database } from "../src/storage/database.ts"
import { testHost } from "./support/host.ts"

const QUESTION = [
  {
    question: "Which?",
    header: "Pick",
    options: [
      { label: "A", description: "a" },
      { label: "B", description: "b" },
    ],
  },
]

describe("question requests under concurrent answers", () => {
  it.live("each request settles exactly once, every waiter sees the winner, and replay equals live", () =>
    Effect.gen(function* () {
      // fast-check drives the runs: each is run with the test's own services, on a host of its own.
      const run = Effect.runPromiseWith(yield* Effect.context<never>())
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            // For each of 6 questions, 2-6 competing answers (reply A, reply B, reject) and a waiter count.
            fc.array(fc.tuple(fc.array(fc.nat({ max: 2 }), { minLength: 2, maxLength: 6 }), fc.nat({ max: 3 })), {
              minLength: 6,
              maxLength: 6,
            }),
            (plan) => {
              const host = testHost()
              return run(
                Effect.gen(function* () {
                  const result = yield* Effect.gen(function* () {
                    const questions = yield* Questions
                    const sessionID = (yield* (yield* Session).create({ directory: host.directory })).id
                    const ids: Array<string> = []
                    for (let i = 0; i < plan.length; i++) {
                      ids.push(
                        yield* questions.ask({
                          sessionID,
                          questions: QUESTION,
                          tool: { messageID: "msg_x", callID: `c${i}` },
                        }),
                      )
                    }
                    // Asking again for the same call gives the same request.
                    expect(
                      yield* questions.ask({
                        sessionID,
                        questions: QUESTION,
                        tool: { messageID: "msg_x", callID: "c0" },
                      }),
                    ).toBe(ids[0])
                    const work = plan.flatMap(([answers, waiters], i) => [
                      ...Array.from({ length: waiters }, () =>
                        Effect.map(questions.outcome(ids[i]!), (o) => ({ i, o })),
                      ),
                      ...answers.map((kind) =>
                        Effect.exit(
                          kind === 2
                            ? questions.reject({ sessionID, requestID: ids[i]! })
                            : questions.reply({ sessionID, requestID: ids[i]!, answers: [[kind === 0 ? "A" : "B"]] }),
                        ).pipe(Effect.map((exit) => ({ i, kind, ok: Exit.isSuccess(exit) }))),
                      ),
                    ])
                    const settled = yield* Effect.all(work, { concurrency: "unbounded" })
                    const after = yield* Effect.all(ids.map((id) => questions.outcome(id)))
                    return { sessionID, ids, settled, after, pending: questions.sync.pending(sessionID) }
                  })
                  expect(result.pending).toEqual([])
                  for (let i = 0; i < plan.length; i++) {
                    const answers = result.settled.filter(
                      (s): s is { i: number; kind: number; ok: boolean } => "ok" in s && s.i === i,
                    )
                    const winners = answers.filter((a) => a.ok)
                    expect(winners).toHaveLength(1)
                    const expected: QuestionOutcome =
                      winners[0]!.kind === 2
                        ? { type: "rejected" }
                        : { type: "replied", answers: [[winners[0]!.kind === 0 ? "A" : "B"]] }
                    for (const seen of result.settled.filter(
                      (s): s is { i: number; o: QuestionOutcome } => "o" in s && s.i === i,
                    ))
                      expect(seen.o).toEqual(expected)
                    expect(result.after[i]).toEqual(expected)
                  }
                  // One settling event per question in the journal; replay rebuilds the same rows.
                  // A reader of its own on the file, closed before the host.
                  const live = yield* Effect.acquireRelease(
                    Effect.sync(() => new SQLite(host.database, { readonly: true })),
                    (db) => Effect.sync(() => db.close()),
                  )
                  const settles = live
                    .query<{ n: number }, []>(
                      "SELECT count(*) AS n FROM event WHERE type IN ('question.v2.replied', 'question.v2.rejected')",
                    )
                    .get()!.n
                  expect(settles).toBe(plan.length)
                  const target = Database.open(":memory:")
                  replay(live, target, makeSessionProjector(target.client))
                  expect(projectionSnapshot(target.client)).toEqual(projectionSnapshot(live))
                  target.client.close()
                }).pipe(Effect.scoped, Effect.provide(host.layer)),
              )
            },
          ),
          { numRuns: 15 },
        ),
      )
    }),
  )
})
