import { Context, Effect, Layer } from "effect"
import { Execution } from "./execution.ts"
import { RESTART_NOTICE } from "./restart-notice.ts"
import { Session } from "../session/session.ts"

export { RESTART_NOTICE }

/**
 * Restart resume: a killed (or stopped) process leaves execution claims behind. On start, each claimed
 * session gets the restart notice and its turn continues; the first request of that turn runs
 * `session.preflight` with `reason: "resume"`. Attempts are counted durably and capped by `Execution`.
 */
export class Restart extends Context.Service<
  Restart,
  {
    resumeClaimed(): Effect.Effect<{
      readonly resumed: ReadonlyArray<string>
      readonly exhausted: ReadonlyArray<string>
    }>
  }
>()("@opencode-ai/core/session/Restart") {
  static readonly layer = Layer.effect(
    Restart,
    Effect.gen(function* () {
      const session = yield* Session
      const execution = yield* Execution
      const implementation = Restart.of({
        resumeClaimed: Effect.fn("Restart.resumeClaimed")(() =>
          Effect.gen(function* () {
            const resumed: Array<string> = []
            const exhausted: Array<string> = []
            for (const sessionID of session.sync.claimedSessions()) {
              if (execution.running(sessionID)) continue
              const result = yield* Effect.result(execution.resume(sessionID, { notice: RESTART_NOTICE }))
              if (result._tag === "Failure") continue
              ;(result.success.resumed ? resumed : exhausted).push(sessionID)
            }
            return { resumed, exhausted }
          }),
        ),
      })
      return implementation
    }),
  )
}
