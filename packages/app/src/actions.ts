import { useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "./api.ts"
import { type BusyWait, Cancelled, retryWhileBusy } from "./busy.ts"

/**
 * What a view shows about the actions it started: a busy wait ("a turn is running", with the next try and
 * a cancel button), the last error's `message`, or the last result worth saying (bytes reclaimed).
 */
export interface ActionStatus {
  readonly waiting?: BusyWait & { readonly label: string; readonly run: number }
  readonly error?: string
  readonly info?: string
}

export interface Actions {
  readonly status: ActionStatus
  /** Runs `call`, retrying while the session is busy; resolves undefined when it failed or was cancelled. */
  run<T>(label: string, call: () => Promise<T>): Promise<T | undefined>
  cancel(): void
  dismiss(): void
  say(info: string): void
}

export const describe = (error: unknown) =>
  error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error)

export const useActions = (onIdle?: (listener: () => void) => () => void): Actions => {
  const [status, setStatus] = useState<ActionStatus>({})
  const controllers = useRef(new Set<AbortController>())
  const runs = useRef(0)
  useEffect(() => () => controllers.current.forEach((c) => c.abort()), [])
  return {
    status,
    async run(label, call) {
      const controller = new AbortController()
      controllers.current.add(controller)
      const run = ++runs.current
      setStatus((s) => ({ ...s, error: undefined }))
      try {
        const result = await retryWhileBusy(call, {
          signal: controller.signal,
          onWait: (wait) => setStatus({ waiting: { ...wait, label, run } }),
          ...(onIdle ? { onIdle } : {}),
        })
        // Clear only this call's wait; another call may still be waiting.
        setStatus((s) => (s.waiting?.run === run ? {} : s))
        return result
      } catch (error) {
        if (error instanceof Cancelled) setStatus({ info: `Cancelled: ${label}` })
        else setStatus({ error: describe(error) })
        return undefined
      } finally {
        controllers.current.delete(controller)
      }
    },
    cancel() {
      for (const controller of controllers.current) controller.abort()
    },
    dismiss() {
      setStatus({})
    },
    say(info) {
      setStatus({ info })
    },
  }
}
