import { ApiError } from "./api.ts"

/**
 * Transcript mutations apply between turns only; while a turn runs the server answers 409
 * `SessionBusyError` and changes nothing. The client then retries the same call with exponential backoff
 * (and at once when it hears the session went idle) until it succeeds, fails otherwise, or the person
 * cancels. A retry is not a reservation: another turn may start first, and the loop simply goes on.
 */

export class Cancelled extends Error {
  override readonly name = "Cancelled"
  constructor() {
    super("cancelled")
  }
}

export interface BusyWait {
  /** 1 for the first retry. */
  readonly attempt: number
  readonly delayMs: number
}

export interface BusyRetryOptions {
  readonly signal: AbortSignal
  /** Called before each wait, so the view can say "a turn is running" and when it tries again. */
  readonly onWait: (wait: BusyWait) => void
  /** Subscribes to "the session may be idle now" (turn ended); returns the unsubscribe. */
  readonly onIdle?: (listener: () => void) => () => void
  readonly baseMs?: number
  readonly maxMs?: number
}

export const backoff = (attempt: number, baseMs = 400, maxMs = 8000) => Math.min(maxMs, baseMs * 2 ** (attempt - 1))

const pause = (ms: number, signal: AbortSignal, onIdle?: BusyRetryOptions["onIdle"]) =>
  new Promise<void>((resolve, reject) => {
    let unsubscribe: (() => void) | undefined
    const done = (fn: () => void) => {
      clearTimeout(timer)
      signal.removeEventListener("abort", abort)
      unsubscribe?.()
      fn()
    }
    const abort = () => done(() => reject(new Cancelled()))
    const timer = setTimeout(() => done(resolve), ms)
    signal.addEventListener("abort", abort, { once: true })
    unsubscribe = onIdle?.(() => done(resolve))
  })

export const retryWhileBusy = async <T>(run: () => Promise<T>, options: BusyRetryOptions): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) throw new Cancelled()
    try {
      return await run()
    } catch (error) {
      if (!(error instanceof ApiError) || !error.busy) throw error
      const delayMs = backoff(attempt, options.baseMs, options.maxMs)
      options.onWait({ attempt, delayMs })
      await pause(delayMs, options.signal, options.onIdle)
    }
  }
}
