import { Context, Effect, Layer, Scope } from "effect"
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
    /**
     * `resumeClaimed` in a fiber of the current scope: the host (and the server on it) starts without
     * waiting for any plugin hook a resume runs. `Execution.wait` on a claimed session waits for its resume.
     */
    resumeInBackground(): Effect.Effect<void, never, Scope.Scope>
  }
>()("@opencode-ai/core/session/Restart") {
  static readonly layer = Layer.effect(
    Restart,
    Effect.gen(function* () {
      const session = yield* Session
      const execution = yield* Execution
      const resumeAll = (claimed: ReadonlyArray<string>, settle: (sessionID: string) => void) =>
        Effect.gen(function* () {
          const resumed: Array<string> = []
          const exhausted: Array<string> = []
          for (const sessionID of claimed) {
            if (execution.running(sessionID)) {
              settle(sessionID)
              continue
            }
            const result = yield* Effect.result(
              execution
                .resume(sessionID, { notice: RESTART_NOTICE })
                .pipe(Effect.ensuring(Effect.sync(() => settle(sessionID)))),
            )
            if (result._tag === "Failure") continue
            ;(result.success.resumed ? resumed : exhausted).push(sessionID)
          }
          return { resumed, exhausted }
        }).pipe(Effect.ensuring(Effect.sync(() => claimed.forEach(settle))))

      const implementation = Restart.of({
        resumeClaimed: Effect.fn("Restart.resumeClaimed")(() => {
          const claimed = session.sync.claimedSessions()
          return resumeAll(claimed, execution.reserveResume(claimed))
        }),
        resumeInBackground: () =>
          Effect.gen(function* () {
            const claimed = session.sync.claimedSessions()
            // Reserved before the fork, so a `wait` right after start already waits for these resumes.
            const settle = execution.reserveResume(claimed)
            yield* Effect.forkScoped(
              resumeAll(claimed, settle).pipe(
                Effect.flatMap(({ resumed, exhausted }) =>
                  resumed.length + exhausted.length > 0
                    ? Effect.logInfo(
                        `resumed ${resumed.length} session(s); ${exhausted.length} gave up after the attempt cap`,
                      )
                    : Effect.void,
                ),
                Effect.withSpan("Restart.resumeInBackground"),
              ),
            )
          }),
      })
      return implementation
    }),
  )
}
