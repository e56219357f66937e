import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { Turns } from "../src/session/turns.ts"

// The process-local turn entries behind every claim this process runs: one service claims, releases,
// marks retrying, reports status and interrupts them.
describe("the turns service", () => {
  it.effect("refuses a second claim for a session while the first holds it; other sessions are free", () =>
    Effect.gen(function* () {
      const turns = yield* Turns
      const first = turns.claim("ses_a", "trn_1")
      assert.isDefined(first)
      assert.isUndefined(turns.claim("ses_a", "trn_2"))
      assert.strictEqual(turns.current("ses_a"), first)
      assert.strictEqual(turns.current("ses_a")?.turnID, "trn_1")
      assert.isDefined(turns.claim("ses_b", "trn_3"))
      assert.deepStrictEqual([...turns.sessions()].sort(), ["ses_a", "ses_b"])
      assert.strictEqual(turns.status("ses_a"), "running")
      assert.isUndefined(turns.status("ses_c"))
    }).pipe(Effect.provide(Turns.layer)),
  )

  it.effect("a released turn is gone at once, its latch opens on finish, and a stale handle releases nothing", () =>
    Effect.gen(function* () {
      const turns = yield* Turns
      const turn = turns.claim("ses_a", "trn_1")!
      const waiter = yield* Effect.forkChild(turns.idle("ses_a"))
      yield* Effect.yieldNow
      assert.isTrue(turns.release("ses_a", turn))
      assert.isUndefined(turns.status("ses_a"))
      assert.deepStrictEqual(turns.sessions(), [])
      assert.isFalse(turns.release("ses_a", turn))
      // Releasing drops the entry in the claim's transaction; waiters wake only once it committed.
      yield* Effect.yieldNow
      assert.isUndefined(waiter.pollUnsafe())
      turns.finish("ses_a", turn)
      yield* Fiber.join(waiter)
      // The session can be claimed again, and the old handle can neither release nor finish the new turn.
      const next = turns.claim("ses_a", "trn_2")!
      assert.isFalse(turns.release("ses_a", turn))
      turns.finish("ses_a", turn)
      assert.strictEqual(turns.current("ses_a"), next)
      // A loop that continues with the next granted turn keeps its entry.
      turns.advance(next, "trn_3")
      assert.strictEqual(turns.current("ses_a")?.turnID, "trn_3")
    }).pipe(Effect.provide(Turns.layer)),
  )

  it.effect("retrying shows in the status of the running turn until it goes on", () =>
    Effect.gen(function* () {
      const turns = yield* Turns
      const turn = turns.claim("ses_a", "trn_1")!
      turns.retrying("ses_a", true)
      assert.strictEqual(turns.status("ses_a"), "retrying")
      assert.isTrue(turn.retrying)
      turns.retrying("ses_a", false)
      assert.strictEqual(turns.status("ses_a"), "running")
      // No turn here: nothing to mark, and nothing appears.
      turns.retrying("ses_b", true)
      assert.isUndefined(turns.status("ses_b"))
    }).pipe(Effect.provide(Turns.layer)),
  )

  it.effect("interrupt stops an attached loop and returns once the entry is gone", () =>
    Effect.gen(function* () {
      const turns = yield* Turns
      const turn = turns.claim("ses_a", "trn_1")!
      const loop = yield* Effect.forkChild(Effect.never)
      turns.attach("ses_a", turn, loop)
      yield* turns.interrupt(turn)
      const exit = loop.pollUnsafe()
      assert.isDefined(exit)
      assert.isTrue(Exit.hasInterrupts(exit!))
      assert.isUndefined(turns.status("ses_a"))
      yield* turns.idle("ses_a")
    }).pipe(Effect.provide(Turns.layer)),
  )

  it.effect("interrupt before the loop is forked marks the turn stopped and waits for it to let go", () =>
    Effect.gen(function* () {
      const turns = yield* Turns
      const turn = turns.claim("ses_a", "trn_1")!
      const stopping = yield* Effect.forkChild(turns.interrupt(turn))
      yield* Effect.yieldNow
      assert.isTrue(turn.stopped)
      assert.isUndefined(stopping.pollUnsafe())
      // The loop, forked late, sees `stopped` and ends without running its turn: its exit finishes the entry.
      const loop = yield* Effect.forkChild(Effect.void)
      turns.attach("ses_a", turn, loop)
      yield* Fiber.join(stopping)
      assert.isUndefined(turns.current("ses_a"))
    }).pipe(Effect.provide(Turns.layer)),
  )
})
