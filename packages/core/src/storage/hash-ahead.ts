import { hashWorkerSource } from "../platform/sha256.ts"
import { blobRef } from "./blob-ref.ts"

/**
 * Content references computed on another thread when that is worth it; the answer is `blobRef` either way.
 * (docs/architecture.md, "Content references are hashed ahead, off the turn's thread")
 */
export interface HashAhead {
  /** `blobRef(content)`, computed off this thread when that is worth it. */
  ref(content: string): Promise<string>
  /**
   * Starts the worker if it is not running and settles once it can take work: `true` when it is up, `false`
   * when contents are hashed in place (no Bun workers here, or the worker failed or was closed).
   */
  warm(): Promise<boolean>
  /** Stops the worker; later calls hash in place. */
  close(): void
}

/** Contents shorter than this (in UTF-16 units) are hashed in place. */
export const HASH_AHEAD_MIN = 64 * 1024

interface Pending {
  readonly content: string
  readonly resolve: (ref: string) => void
}

export const makeHashAhead = (): HashAhead => {
  const inPlace = (content: string) => Promise.resolve(blobRef(content))
  const source = hashWorkerSource()
  if (source === undefined) return { ref: inPlace, warm: () => Promise.resolve(false), close: () => undefined }

  let worker: Worker | undefined
  let url: string | undefined
  let ready = false
  let broken = false
  let warmed: Promise<boolean> | undefined
  let settleWarm: ((up: boolean) => void) | undefined
  let next = 0
  const pending = new Map<number, Pending>()

  const settleAllInPlace = () => {
    for (const [id, entry] of pending) {
      pending.delete(id)
      entry.resolve(blobRef(entry.content))
    }
  }

  const start = () => {
    warmed = new Promise<boolean>((resolve) => {
      settleWarm = resolve
    })
    url = URL.createObjectURL(new Blob([source], { type: "application/javascript" }))
    const created = new Worker(url)
    created.addEventListener("open", () => {
      ready = !broken
      settleWarm?.(ready)
    })
    created.onmessage = (event: MessageEvent<{ id: number; ref?: string }>) => {
      const entry = pending.get(event.data.id)
      if (!entry) return
      pending.delete(event.data.id)
      entry.resolve(event.data.ref ?? blobRef(entry.content))
    }
    created.onerror = () => {
      broken = true
      ready = false
      settleWarm?.(false)
      settleAllInPlace()
    }
    // The worker never keeps the process alive: a host that is done exits whatever it holds.
    ;(created as { unref?: () => void }).unref?.()
    worker = created
  }

  return {
    ref: (content) => {
      if (broken || content.length < HASH_AHEAD_MIN) return inPlace(content)
      if (worker === undefined) start()
      // Until the worker is up, hashing here is faster than waiting for it.
      if (!ready) return inPlace(content)
      const id = next++
      return new Promise<string>((resolve) => {
        pending.set(id, { content, resolve })
        worker!.postMessage({ id, content })
      })
    },
    warm: () => {
      if (broken) return Promise.resolve(false)
      if (worker === undefined) start()
      return warmed!
    },
    close: () => {
      broken = true
      ready = false
      settleWarm?.(false)
      worker?.terminate()
      worker = undefined
      if (url !== undefined) URL.revokeObjectURL(url)
      url = undefined
      settleAllInPlace()
    },
  }
}
