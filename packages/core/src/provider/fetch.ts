/**
 * The `fetch` every model client uses: a bounded silence (`IdleTimeoutError`), no total time cap.
 * (docs/architecture.md, "Model streams have an idle timeout, not a total one")
 */

/** Default longest silence of a model stream, in ms (10 minutes): `provider.<id>.timeout`. */
export const DEFAULT_IDLE_TIMEOUT = 600_000

/** The stream was silent for longer than the configured timeout. */
export class IdleTimeoutError extends Error {
  override readonly name = "IdleTimeoutError"
  constructor(readonly timeout: number) {
    super(`no data from the model for ${timeout} ms (the provider's "timeout"); the request was abandoned`)
  }
}

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** `RequestInit` with Bun's per-request socket idle timeout (false disables it). */
export type BunRequestInit = RequestInit & { timeout?: number | boolean }

export interface IdleFetchOptions {
  /** Longest silence, in ms. */
  readonly timeout: number
  /** The underlying fetch (tests observe what it is given); default the global `fetch`. */
  readonly base?: FetchLike
}

export const makeIdleFetch = (options: IdleFetchOptions): FetchLike => {
  const base = options.base ?? ((input, init) => fetch(input, init))
  return async (input, init) => {
    const controller = new AbortController()
    const outer = init?.signal
    const forward = () => controller.abort(outer?.reason)
    if (outer?.aborted) forward()
    else outer?.addEventListener("abort", forward, { once: true })
    let timer: ReturnType<typeof setTimeout> | undefined
    const arm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => controller.abort(new IdleTimeoutError(options.timeout)), options.timeout)
    }
    const disarm = () => clearTimeout(timer)
    const idle = () => (controller.signal.reason instanceof IdleTimeoutError ? controller.signal.reason : undefined)
    const done = () => {
      disarm()
      outer?.removeEventListener("abort", forward)
    }

    arm()
    let response: Response
    try {
      const request: BunRequestInit = { ...init, signal: controller.signal, timeout: false }
      response = await base(input, request)
    } catch (cause) {
      done()
      throw idle() ?? cause
    }
    disarm()
    const source = response.body
    if (!source) {
      done()
      return response
    }
    const reader = source.getReader()
    // The timer runs only while a read is pending: a slow consumer is not a silent server.
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        arm()
        try {
          const chunk = await reader.read()
          disarm()
          if (chunk.done) {
            done()
            stream.close()
          } else stream.enqueue(chunk.value)
        } catch (cause) {
          done()
          stream.error(idle() ?? cause)
        }
      },
      cancel(reason) {
        done()
        return reader.cancel(reason)
      },
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}
