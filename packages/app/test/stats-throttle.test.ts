import { describe, expect, it } from "vitest"
import { STATS_INTERVAL_MS } from "../src/api.ts"
import { throttle, type ThrottleScheduler } from "../src/throttle.ts"

/** A scripted clock: timers fire only when the test advances time past them. */
const scriptedClock = () => {
  let time = 0
  let next = 0
  const timers = new Map<number, { at: number; run: () => void }>()
  const scheduler: ThrottleScheduler = {
    now: () => time,
    setTimeout: (run, ms) => {
      const id = ++next
      timers.set(id, { at: time + ms, run })
      return id
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  }
  const advance = (ms: number) => {
    const until = time + ms
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0]
      if (!due) break
      timers.delete(due[0])
      time = due[1].at
      due[1].run()
    }
    time = until
  }
  return { scheduler, advance, pending: () => timers.size }
}

describe("the storage report is asked for at most once per second per view", () => {
  it("collapses a burst of seq changes into one call now and one at the end of the interval", () => {
    const clock = scriptedClock()
    const calls: Array<number> = []
    const refresh = throttle(() => calls.push(clock.scheduler.now()), STATS_INTERVAL_MS, clock.scheduler)
    // 200 seq changes 5 ms apart: one second of streaming.
    for (let i = 0; i < 200; i++) {
      refresh.request()
      clock.advance(5)
    }
    clock.advance(2 * STATS_INTERVAL_MS)
    expect(calls).toEqual([0, STATS_INTERVAL_MS])
    for (let i = 1; i < calls.length; i++) expect(calls[i]! - calls[i - 1]!).toBeGreaterThanOrEqual(1_000)
  })

  it("never calls more than once in any second of a long stream, and answers the last change", () => {
    const clock = scriptedClock()
    const calls: Array<number> = []
    const refresh = throttle(() => calls.push(clock.scheduler.now()), STATS_INTERVAL_MS, clock.scheduler)
    let last = 0
    for (let i = 0; i < 1_000; i++) {
      refresh.request()
      last = clock.scheduler.now()
      clock.advance(1 + ((i * 37) % 23))
    }
    clock.advance(STATS_INTERVAL_MS)
    for (let i = 1; i < calls.length; i++) expect(calls[i]! - calls[i - 1]!).toBeGreaterThanOrEqual(STATS_INTERVAL_MS)
    // The final change is reflected: a call ran at or after it.
    expect(calls.at(-1)!).toBeGreaterThanOrEqual(last)
    expect(clock.pending()).toBe(0)
  })

  it("a request after a quiet interval runs at once", () => {
    const clock = scriptedClock()
    let calls = 0
    const refresh = throttle(() => calls++, STATS_INTERVAL_MS, clock.scheduler)
    refresh.request()
    clock.advance(5 * STATS_INTERVAL_MS)
    refresh.request()
    expect(calls).toBe(2)
  })

  it("a closed view makes no further call", () => {
    const clock = scriptedClock()
    let calls = 0
    const refresh = throttle(() => calls++, STATS_INTERVAL_MS, clock.scheduler)
    refresh.request()
    refresh.request()
    refresh.cancel()
    clock.advance(5 * STATS_INTERVAL_MS)
    refresh.request()
    expect(calls).toBe(1)
    expect(clock.pending()).toBe(0)
  })
})
