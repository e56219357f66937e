import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"

/** A destructive action waiting for a yes: what it is called, and what will be lost. */
export interface ConfirmRequest {
  readonly title: string
  /** What will be lost, said plainly. */
  readonly body: ComponentChildren
  /** The confirm button's label ("Delete for good"). */
  readonly action: string
  readonly run: () => void
}

/**
 * A modal asking before something that cannot be undone. Cancel has the focus, so Enter or Escape
 * never destroys anything by accident.
 */
export const ConfirmDialog = ({ request, onClose }: { request: ConfirmRequest; onClose: () => void }) => {
  const cancel = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    cancel.current?.focus()
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose()
    }
    addEventListener("keydown", onKey)
    return () => removeEventListener("keydown", onKey)
  }, [request])
  return (
    <div class="modal-scrim" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        class="modal"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="confirm-title"
        data-testid="confirm-dialog"
      >
        <h2 id="confirm-title">{request.title}</h2>
        <div class="modal-body" data-testid="confirm-body">
          {request.body}
        </div>
        <div class="row modal-actions">
          <span class="spacer" />
          <button type="button" ref={cancel} data-testid="confirm-cancel" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class="danger-solid"
            data-testid="confirm-action"
            onClick={() => {
              onClose()
              request.run()
            }}
          >
            {request.action}
          </button>
        </div>
      </div>
    </div>
  )
}

/** `ask(request)` opens the dialog; render `dialog` somewhere in the view. */
export const useConfirm = () => {
  const [request, setRequest] = useState<ConfirmRequest | undefined>(undefined)
  return {
    ask: (next: ConfirmRequest) => setRequest(next),
    dialog: request ? <ConfirmDialog request={request} onClose={() => setRequest(undefined)} /> : null,
  }
}
