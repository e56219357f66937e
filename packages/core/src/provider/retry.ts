import type { RetryDecision } from "@opencode-ai/plugin"
import { Effect, Stream } from "effect"
import type { ProviderError, ProviderEvent } from "./provider.ts"

/** Retries of a transient failure when `provider.<id>.retries` is not set. */
export const DEFAULT_RETRIES = 4

/** The first backoff delay; each further attempt doubles it, up to `MAX_BACKOFF`. */
export const BASE_BACKOFF = 1_000
export const MAX_BACKOFF = 30_000
/** A `retry-after` longer than this is not waited for: the request fails instead. */
export const MAX_RETRY_AFTER = 600_000

/** One wait before a retry, as reported to the session (`session.next.retried`). */
export interface RetryNotice {
  /** 1 for the first retry. */
  readonly attempt: number
  readonly delayMs: number
  readonly error: ProviderError
}

export interface RetryHandlers {
  /** Runs when a wait starts (status `retrying`, `session.next.retried`). */
  readonly onRetry: (notice: RetryNotice) => Effect.Effect<void>
  /** Runs when the wait ends, however it ends. */
  readonly onResume: Effect.Effect<void>
  /**
   * Reviews the host's decision for a failure before any output (the `retry` hook), while attempts remain;
   * it sees failures the host would not retry too. `notice.delayMs` is the host's delay.
   */
  readonly decide?: (notice: RetryNotice, decision: RetryDecision) => Effect.Effect<RetryDecision>
}

/** The delay before retry `attempt` (1-based): what the server asked for, else exponential backoff. */
export const retryDelay = (attempt: number, error: ProviderError): number =>
  error.retryAfter ?? Math.min(BASE_BACKOFF * 2 ** (attempt - 1), MAX_BACKOFF)

/** Whether the host retries a failure by itself: transient, attempts left, a delay it is willing to wait. */
const hostRetries = (error: ProviderError, failures: number) =>
  error.retryable === true && retryDelay(failures + 1, error) <= MAX_RETRY_AFTER

/**
 * Runs a model stream, retrying it from scratch when it fails transiently (429, 5xx, connection refused
 * or reset: `ProviderError.retryable`) before yielding anything, up to `retries` times with backoff that
 * honours `retry-after`. A failure after output has streamed is not retried: the partial answer was
 * already shown and recorded, and repeating the request would show a different one.
 */
export const withRetry = (
  make: () => Stream.Stream<ProviderEvent, ProviderError>,
  retries: number,
  handlers: RetryHandlers,
): Stream.Stream<ProviderEvent, ProviderError> => {
  const attempt = (failures: number): Stream.Stream<ProviderEvent, ProviderError> =>
    Stream.suspend(() => {
      let received = false
      return make().pipe(
        // Per chunk, not per event: the flag only needs to know that something arrived.
        Stream.mapArray((events) => {
          received = true
          return events
        }),
        Stream.catchIf(
          (error): error is ProviderError =>
            !received && failures < retries && (handlers.decide !== undefined || hostRetries(error, failures)),
          (error) =>
            Stream.unwrap(
              Effect.gen(function* () {
                const delayMs = retryDelay(failures + 1, error)
                const own: RetryDecision = hostRetries(error, failures)
                  ? { retry: true, delay: delayMs }
                  : { retry: false }
                const decision = handlers.decide
                  ? yield* handlers.decide({ attempt: failures + 1, delayMs, error }, own)
                  : own
                if (!decision.retry) return Stream.fail(error)
                const notice = { attempt: failures + 1, delayMs: Math.min(decision.delay, MAX_RETRY_AFTER), error }
                yield* handlers
                  .onRetry(notice)
                  .pipe(Effect.andThen(Effect.sleep(notice.delayMs)), Effect.ensuring(handlers.onResume))
                return attempt(failures + 1)
              }),
            ),
        ),
      )
    })
  // Nothing to retry (the offline provider, or `retries: 0`): the stream goes through unwrapped.
  return retries > 0 ? attempt(0) : make()
}
