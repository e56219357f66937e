/**
 * Coalesces calls into one per animation frame: a reply streaming 200 deltas a second re-renders the
 * transcript once per frame, not once per delta, leaving the main thread free for typing. A hidden page
 * gets no frames, so there it runs on the next task instead.
 */
export const perFrame = (run: () => void) => {
  let pending = false
  return () => {
    if (pending) return
    pending = true
    const go = () => {
      pending = false
      run()
    }
    if (typeof document !== "undefined" && document.visibilityState === "visible") requestAnimationFrame(go)
    else setTimeout(go, 0)
  }
}
