/**
 * HTML to markdown or text for `webfetch`, off the event loop: each conversion runs in a Worker of its own
 * (`html-worker.ts`), terminated when it answers, when the call is aborted or when it runs out of time, so
 * a huge or pathological page costs a worker thread, never the host's responsiveness.
 */

/** Set by the binary's build (`packages/server/script/build-binary.ts`) to the worker's embedded path. */
declare const OPENCODE2_HTML_WORKER: string | undefined

/** The worker's module: next to this file from source; inside the binary, where its build embedded it. */
const workerURL =
  typeof OPENCODE2_HTML_WORKER === "string" ? OPENCODE2_HTML_WORKER : new URL("./html-worker.ts", import.meta.url).href

/** Converts `html`; rejects after `timeoutMs` or when `signal` aborts. */
export const convertHtml = (
  html: string,
  format: "markdown" | "text",
  options: { readonly signal: AbortSignal; readonly timeoutMs: number },
): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    const worker = new Worker(workerURL)
    let settled = false
    const finish = (settle: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal.removeEventListener("abort", onAbort)
      worker.terminate()
      settle()
    }
    const onAbort = () => finish(() => reject(new Error("aborted")))
    const timer = setTimeout(
      () => finish(() => reject(new Error(`converting the page took longer than ${options.timeoutMs} ms`))),
      options.timeoutMs,
    )
    if (options.signal.aborted) return onAbort()
    options.signal.addEventListener("abort", onAbort)
    worker.onmessage = (event: MessageEvent) => {
      const data = event.data as { text?: string; error?: string }
      finish(() => (data.error !== undefined ? reject(new Error(data.error)) : resolve(data.text ?? "")))
    }
    worker.onerror = (event: ErrorEvent) => finish(() => reject(new Error(`conversion failed: ${event.message}`)))
    worker.postMessage({ id: 0, html, format })
  })
