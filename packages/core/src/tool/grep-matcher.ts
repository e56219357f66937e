/**
 * The regular-expression side of `grep`, run in a Worker created from source text, so a pattern that
 * backtracks catastrophically never blocks the event loop. (docs/architecture.md, "grep's regular
 * expressions run in a worker")
 */

/** What the worker answers for one file. */
export interface FileMatches {
  readonly matches: ReadonlyArray<string>
  /** More lines matched than `remaining` allowed. */
  readonly truncated: boolean
}

/** A worker bound to one pattern. `close` terminates it, also mid-match. */
export interface LineMatcher {
  match(shown: string, bytes: Uint8Array, remaining: number): Promise<FileMatches>
  close(): void
}

/**
 * The worker's whole program. It is serialised with `toString`, so it must not reference anything outside
 * its own body (no imports, no module constants): everything it needs arrives in messages.
 */
function matcherProgram() {
  const scope = globalThis as unknown as {
    onmessage: (event: { data: any }) => void
    postMessage: (message: unknown) => void
  }
  let regex: RegExp | undefined
  let maxLineChars = 500
  scope.onmessage = (event) => {
    const message = event.data
    if (message.type === "pattern") {
      regex = new RegExp(message.pattern)
      maxLineChars = message.maxLineChars
      return
    }
    const lines = new TextDecoder().decode(message.bytes).split("\n")
    const matches: Array<string> = []
    let truncated = false
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!
      if (line.endsWith("\r")) line = line.slice(0, -1)
      if (!regex!.test(line)) continue
      if (matches.length >= message.remaining) {
        truncated = true
        break
      }
      const text = line.length > maxLineChars ? `${line.slice(0, maxLineChars)}…` : line
      matches.push(`${message.shown}:${i + 1}: ${text}`)
    }
    scope.postMessage({ id: message.id, matches, truncated })
  }
}

let programURL: string | undefined
const workerURL = () =>
  (programURL ??= URL.createObjectURL(
    new Blob([`(${matcherProgram.toString()})()`], { type: "application/javascript" }),
  ))

/** Starts a worker for `pattern` (already known to compile). */
export const startMatcher = (pattern: string, maxLineChars: number): LineMatcher => {
  const worker = new Worker(workerURL())
  const pending = new Map<number, { resolve: (m: FileMatches) => void; reject: (e: Error) => void }>()
  let next = 0
  let failure: Error | undefined
  const failAll = (error: Error) => {
    failure ??= error
    for (const waiter of pending.values()) waiter.reject(failure)
    pending.clear()
  }
  worker.onmessage = (event: MessageEvent) => {
    const { id, matches, truncated } = event.data as { id: number } & FileMatches
    const waiter = pending.get(id)
    pending.delete(id)
    waiter?.resolve({ matches, truncated })
  }
  worker.onerror = (event: ErrorEvent) => failAll(new Error(`search worker failed: ${event.message}`))
  worker.postMessage({ type: "pattern", pattern, maxLineChars })
  return {
    match: (shown, bytes, remaining) =>
      new Promise<FileMatches>((resolve, reject) => {
        if (failure) return reject(failure)
        const id = next++
        pending.set(id, { resolve, reject })
        // Hand the bytes over without a copy when this view owns its whole buffer.
        const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        worker.postMessage({ type: "file", id, shown, bytes, remaining }, own ? [bytes.buffer as ArrayBuffer] : [])
      }),
    close: () => {
      failAll(new Error("search stopped"))
      worker.terminate()
    },
  }
}
