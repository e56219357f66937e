import { describe, expect, it } from "vitest"
import { ApiError } from "../src/api.ts"
import { backoff, Cancelled, retryWhileBusy } from "../src/busy.ts"

const busy = () => new ApiError(409, "SessionBusyError", "Session ses_x is busy", { sessionID: "ses_x" })

describe("retrying a mutation while a turn runs", () => {
  it("backs off exponentially up to a cap", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoff(n))).toEqual([400, 800, 1600, 3200, 6400, 8000, 8000])
  })

  it("retries 409 SessionBusyError until the call succeeds, reporting each wait", async () => {
    let calls = 0
    const waits: Array<number> = []
    const result = await retryWhileBusy(
      async () => {
        calls++
        if (calls < 3) throw busy()
        return "done"
      },
      { signal: new AbortController().signal, onWait: (w) => waits.push(w.attempt), baseMs: 1, maxMs: 2 },
    )
    expect(result).toBe("done")
    expect(calls).toBe(3)
    expect(waits).toEqual([1, 2])
  })

  it("does not retry any other error", async () => {
    let calls = 0
    const failure = new ApiError(400, "InvalidTargetError", "not a text part")
    await expect(
      retryWhileBusy(
        async () => {
          calls++
          throw failure
        },
        { signal: new AbortController().signal, onWait: () => undefined },
      ),
    ).rejects.toBe(failure)
    expect(calls).toBe(1)
  })

  it("tries again at once when the session goes idle, and stops when cancelled", async () => {
    let wake: (() => void) | undefined
    let calls = 0
    const controller = new AbortController()
    const retried = retryWhileBusy(
      async () => {
        calls++
        if (calls === 1) throw busy()
        return calls
      },
      {
        signal: controller.signal,
        onWait: () => queueMicrotask(() => wake?.()),
        onIdle: (listener) => {
          wake = listener
          return () => {
            wake = undefined
          }
        },
        // Far longer than the test: only the idle signal can end this wait.
        baseMs: 60_000,
      },
    )
    expect(await retried).toBe(2)

    const cancelled = retryWhileBusy(
      async () => {
        throw busy()
      },
      { signal: controller.signal, onWait: () => queueMicrotask(() => controller.abort()), baseMs: 60_000 },
    )
    await expect(cancelled).rejects.toBeInstanceOf(Cancelled)
  })
})
