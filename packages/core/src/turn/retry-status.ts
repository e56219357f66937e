import { Clock, Effect } from "effect"
import type { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import type { RetryHandlers } from "../provider/retry.ts"
import { SessionEvent } from "../domain/event.ts"
import type { Turns } from "../session/turns.ts"

/**
 * What a session shows while a model request waits to be retried: status `retrying` (on the running turn's
 * entry, read by `session.get`), a durable `session.next.retried { attempt, error, delayMs }` and a live
 * `session.status` of type `retry` saying when the next attempt starts.
 */
export const retryStatus = (bus: Bus["Service"], turns: Turns["Service"], sessionID: string): RetryHandlers => ({
  onRetry: (notice) =>
    Effect.gen(function* () {
      turns.retrying(sessionID, true)
      yield* bus
        .commit(sessionID, [
          draft(SessionEvent.Retried, {
            attempt: notice.attempt,
            delayMs: notice.delayMs,
            error: {
              message: notice.error.message,
              isRetryable: true,
              ...(notice.error.status !== undefined ? { statusCode: notice.error.status } : {}),
            },
          }),
        ])
        .pipe(Effect.orDie)
      const now = yield* Clock.currentTimeMillis
      bus.publish(SessionEvent.Status, sessionID, {
        status: {
          type: "retry",
          attempt: notice.attempt,
          message: notice.error.message,
          next: now + notice.delayMs,
        },
        name: "retrying",
      })
    }),
  onResume: Effect.sync(() => {
    turns.retrying(sessionID, false)
    bus.publish(SessionEvent.Status, sessionID, { status: { type: "busy" }, name: "busy" })
  }),
})
