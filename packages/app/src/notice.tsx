import type { Actions } from "./actions.ts"

/** The busy-retry / error / result line of a view. */
export const Notice = ({ actions }: { actions: Actions }) => {
  const { waiting, error, info } = actions.status
  if (waiting) {
    return (
      <div class="notice busy" role="status" data-testid="busy">
        <span>
          A turn is running — {waiting.label} will retry in {(waiting.delayMs / 1000).toFixed(1)} s (attempt{" "}
          {waiting.attempt})
        </span>
        <button type="button" onClick={() => actions.cancel()}>
          Cancel
        </button>
      </div>
    )
  }
  if (error) {
    return (
      <div class="notice error" role="alert" data-testid="error">
        <span>{error}</span>
        <button type="button" onClick={() => actions.dismiss()}>
          Dismiss
        </button>
      </div>
    )
  }
  if (info) {
    return (
      <div class="notice info" role="status" data-testid="info">
        <span>{info}</span>
        <button type="button" onClick={() => actions.dismiss()}>
          Dismiss
        </button>
      </div>
    )
  }
  return null
}
