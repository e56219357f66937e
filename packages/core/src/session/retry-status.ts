import { Effect } from "effect"
import type { Bus } from "../bus/bus.ts"
import type { RetryHandlers } from "../provider/retry.ts"
import { SessionEvent } from "./event.ts"
import type { Turns } from "./turns.ts"

/**
 * What a session shows while a model request waits to be retried: status `retrying` (on the running turn's
 * entry, read by `GET /api/session/:id`) and an ephemeral `session.retry { attempt, delayMs, error }`.
 */
export const retryStatus = (bus: Bus["Service"], turns: Turns["Service"], sessionID: string): RetryHandlers => ({
  onRetry: (notice) =>
    Effect.sync(() => {
      const turn = turns.get(sessionID)
      if (turn) turn.retrying = true
      bus.publish(SessionEvent.Retry, sessionID, {
        attempt: notice.attempt,
        delayMs: notice.delayMs,
        error: notice.error.message,
      })
    }),
  onResume: Effect.sync(() => {
    const turn = turns.get(sessionID)
    if (turn) turn.retrying = false
  }),
})
