import { Duration, Effect, Fiber, Random } from "effect"
import { describe, expect, it } from "vitest"
import { Bus, isDurable } from "../src/bus/bus.ts"
import { Execution } from "../src/turn/execution.ts"
import { Mutation } from "../src/maintenance/mutation.ts"
import { Session } from "../src/session/session.ts"
import { makeHost } from "./support/host.ts"

/** Yields a random number of times (0..max), so the racing calls interleave differently every round. */
const jitter = (max: number) =>
  Effect.gen(function* () {
    const pause = yield* Random.nextIntBetween(0, max + 1)
    for (let k = 0; k < pause; k++) yield* Effect.yieldNow
  })

describe("prompt and interrupt racing on one session", () => {
  it("every round ends idle with the claim released, wait returning, and a restart resuming nothing", async () => {
    const host = makeHost()
    const outcomes = new Map<string, number>()
    const sessionID = await host.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const mutation = yield* Mutation
        const bus = yield* Bus
        const info = yield* session.create({ directory: host.directory })
        bus.subscribe((event) => {
          if (isDurable(event) && event.type === "session.next.turn.ended") {
            const outcome = (event.data as { outcome: string }).outcome
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
          }
        })
        for (let round = 0; round < 300; round++) {
          // Randomized shape: one or two prompts, one or two interrupts, each after its own random pause;
          // now and then the racing callers are interrupted themselves (a client going away).
          const calls: Array<Effect.Effect<unknown, unknown>> = [
            jitter(6).pipe(
              Effect.andThen(execution.prompt({ sessionID: info.id, prompt: { text: `round ${round}` } })),
            ),
            jitter(6).pipe(Effect.andThen(execution.interrupt(info.id))),
          ]
          if (round % 3 === 0)
            calls.push(
              jitter(10).pipe(
                Effect.andThen(execution.prompt({ sessionID: info.id, prompt: { text: `again ${round}` } })),
              ),
            )
          if (round % 4 === 0) calls.push(jitter(10).pipe(Effect.andThen(execution.interrupt(info.id))))
          const fibers = yield* Effect.forEach(calls, (call) => Effect.forkChild(call))
          if (round % 7 === 0) {
            yield* jitter(4)
            yield* Fiber.interrupt(fibers[0]!)
          }
          yield* Fiber.awaitAll(fibers)
          // The last interrupt may have come before the prompt: the turn then runs to its end.
          const waited = yield* execution.wait(info.id).pipe(Effect.timeoutOption(Duration.seconds(5)))
          expect(waited._tag, `round ${round}: wait returned`).toBe("Some")
          const after = yield* session.get(info.id)
          expect(after.status, `round ${round}: status`).toBe("idle")
          expect(execution.running(info.id), `round ${round}: running`).toBe(false)
          expect(session.sync.claimed(info.id), `round ${round}: claim`).toBeUndefined()
          if (round % 50 === 0) {
            // A mutation between rounds is admitted: nothing holds the session.
            const page = yield* session.messages(info.id, { limit: 500 })
            const prompt = page.data.find((m) => m.type === "user")!
            yield* mutation.correct({
              sessionID: info.id,
              messageID: prompt.id,
              text: `corrected ${round}`,
              by: "user",
            })
          }
        }
        return info.id
      }),
    )
    await host.dispose()
    // Both orders happened: turns stopped by the interrupt and turns that ran to their end.
    expect(outcomes.get("interrupted") ?? 0).toBeGreaterThan(0)
    expect(outcomes.get("completed") ?? 0).toBeGreaterThan(0)

    const again = makeHost({ database: host.database, directory: host.directory })
    const after = await again.run(
      Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        return {
          info: yield* session.get(sessionID),
          running: execution.running(sessionID),
          claim: session.sync.claimed(sessionID),
        }
      }),
    )
    expect(after.info.status).toBe("idle")
    expect(after.running).toBe(false)
    expect(after.claim).toBeUndefined()
    await again.dispose()
  }, 60_000)
})
