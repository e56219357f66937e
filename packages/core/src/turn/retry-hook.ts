import type { RequestKind, RetryDecision, RetryEvent } from "@opencode-ai/plugin"
import { Effect } from "effect"
import type { Hooks } from "../hooks/hooks.ts"
import { MAX_RETRY_AFTER, type RetryHandlers } from "../provider/retry.ts"
import type { ModelRef } from "../domain/model-request.ts"

const valid = (decision: unknown): decision is RetryDecision => {
  if (typeof decision !== "object" || decision === null) return false
  const { retry, delay } = decision as { retry?: unknown; delay?: unknown }
  if (retry === false) return true
  return retry === true && typeof delay === "number" && Number.isFinite(delay) && delay >= 0
}

/**
 * The `retry` hook as a retry decider: each callback sees the failure and the decision so far (the host's,
 * then each earlier plugin's) and may replace it. A callback that fails, times out or leaves a decision
 * that is not `{ retry: false }` or `{ retry: true, delay >= 0 }` stops retrying (the request fails with the
 * provider's error) and is logged naming the plugin: retrying is never the outcome of a broken hook.
 */
export const retryHook = (
  hooks: Hooks["Service"],
  scope: { readonly sessionID: string; readonly model: ModelRef; readonly kind: RequestKind },
  timeout: number,
): NonNullable<RetryHandlers["decide"]> => {
  return (notice, decision) => {
    if (hooks.list("retry").length === 0) return Effect.succeed(decision)
    const event: RetryEvent = {
      sessionID: scope.sessionID,
      model: { ...scope.model },
      kind: scope.kind,
      attempt: notice.attempt,
      error: {
        message: notice.error.message,
        ...(notice.error.status !== undefined ? { status: notice.error.status } : {}),
        retryable: notice.error.retryable === true,
      },
      decision: { ...decision },
    }
    let broken: string | undefined
    return hooks
      .run("retry", event, {
        timeout,
        each: (pluginID) => {
          if (broken === undefined && !valid(event.decision)) broken = pluginID
        },
      })
      .pipe(
        Effect.flatMap(() =>
          broken === undefined
            ? Effect.succeed(
                event.decision.retry
                  ? { retry: true as const, delay: Math.min(event.decision.delay, MAX_RETRY_AFTER) }
                  : { retry: false as const },
              )
            : Effect.logError(`retry hook left an invalid decision; not retrying`).pipe(
                Effect.annotateLogs({ plugin: broken }),
                Effect.as({ retry: false as const }),
              ),
        ),
        Effect.catch((error) =>
          Effect.logError(`retry hook failed; not retrying: ${error.message}`).pipe(
            Effect.annotateLogs({ plugin: error.pluginID }),
            Effect.as({ retry: false as const }),
          ),
        ),
      )
  }
}
