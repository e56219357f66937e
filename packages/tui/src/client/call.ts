/** A failed SDK call: the server's typed error (its `_tag` and message), or a connection failure. */
export class CallError extends Error {
  override readonly name = "CallError"
  constructor(
    message: string,
    readonly tag: string | undefined,
  ) {
    super(message)
  }
}

type Result<T> = { data?: T; error?: unknown; response?: Response }

/** Awaits one SDK call: its data, or a `CallError` with the server's message. */
export const call = async <T>(request: Promise<Result<T>>): Promise<T> => {
  let result: Result<T>
  try {
    result = await request
  } catch (cause) {
    throw new CallError(`cannot reach the server: ${cause instanceof Error ? cause.message : String(cause)}`, undefined)
  }
  if (result.error === undefined && result.data !== undefined) return result.data
  if (result.response === undefined || result.error instanceof Error)
    throw new CallError(
      `cannot reach the server: ${String((result.error as Error | undefined)?.message ?? "no response")}`,
      undefined,
    )
  const body = (typeof result.error === "object" && result.error !== null ? result.error : {}) as {
    _tag?: string
    message?: string
  }
  throw new CallError(body.message ?? `request failed with status ${result.response.status}`, body._tag)
}

/** Awaits a call that answers no body (204). */
export const done = async (request: Promise<Result<unknown>>): Promise<void> => {
  const result = await request.catch((cause: unknown) => {
    throw new CallError(`cannot reach the server: ${cause instanceof Error ? cause.message : String(cause)}`, undefined)
  })
  if (result.error !== undefined) {
    const body = (typeof result.error === "object" && result.error !== null ? result.error : {}) as {
      _tag?: string
      message?: string
    }
    throw new CallError(body.message ?? `request failed with status ${result.response?.status ?? "?"}`, body._tag)
  }
}
