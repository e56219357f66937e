/**
 * Runs a refresh at most once per interval, however often it is asked for: the first request runs at
 * once, requests inside the interval collapse into one trailing run at its end, so the last change is
 * never missed. A view owns one (the storage report is asked for per view, never per seq change).
 */
export interface Throttle {
  /** Asks for a run: now if the interval since the last run has passed, else once at its end. */
  readonly request: () => void
  /** Drops a pending trailing run; later requests are ignored. */
  readonly cancel: () => void
}

/** The clock and timer a throttle uses; the browser's by default, a scripted one in tests. */
export interface ThrottleScheduler {
  readonly now: () => number
  readonly setTimeout: (run: () => void, ms: number) => unknown
  readonly clearTimeout: (handle: unknown) => void
}

const browserScheduler: ThrottleScheduler = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export const throttle = (run: () => void, intervalMs: number, scheduler = browserScheduler): Throttle => {
  let last: number | undefined
  let pending: unknown
  let cancelled = false
  const fire = () => {
    pending = undefined
    last = scheduler.now()
    run()
  }
  return {
    request: () => {
      if (cancelled || pending !== undefined) return
      const wait = last === undefined ? 0 : last + intervalMs - scheduler.now()
      if (wait <= 0) fire()
      else pending = scheduler.setTimeout(fire, wait)
    },
    cancel: () => {
      cancelled = true
      if (pending !== undefined) scheduler.clearTimeout(pending)
      pending = undefined
    },
  }
}
