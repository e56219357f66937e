/** The least time between two coalesced runs: 20 renders a second keep streamed text fluid. */
const MIN_GAP_MS = 50

/**
 * Coalesces calls into one run per animation frame, at most one per `MIN_GAP_MS`: a reply streaming 200
 * deltas a second re-renders the transcript about 20 times a second, not 200, leaving the main thread
 * free for typing. A hidden page gets no frames, so there it runs on a timer instead.
 */
export const perFrame = (run: () => void, gap = MIN_GAP_MS) => {
  let pending = false
  let last = Number.NEGATIVE_INFINITY
  const go = () => {
    pending = false
    last = performance.now()
    run()
  }
  const frame = () => {
    if (typeof document !== "undefined" && document.visibilityState === "visible") requestAnimationFrame(go)
    else setTimeout(go, 0)
  }
  return () => {
    if (pending) return
    pending = true
    const wait = last + gap - performance.now()
    if (wait > 0) setTimeout(frame, wait)
    else frame()
  }
}
