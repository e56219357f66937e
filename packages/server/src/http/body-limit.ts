import { PayloadTooLargeError } from "@opencode-ai/protocol"

/** Default request body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024

export const tooLarge = (limit: number) =>
  new PayloadTooLargeError({ message: `The request body is larger than the limit of ${limit} bytes`, limit })

/**
 * The body limit decided from the headers alone: a request without a body or with a declared
 * `Content-Length` (the transport frames the body by it, so it cannot be longer) is answered at once;
 * undefined means the body is chunked and must be read (`limitBody`).
 */
export const limitDeclared = (request: Request, limit: number): Request | PayloadTooLargeError | undefined => {
  if (request.body === null) return request
  const declared = request.headers.get("content-length")
  if (declared !== null && /^\d+$/.test(declared.trim())) return Number(declared) > limit ? tooLarge(limit) : request
  return undefined
}

/**
 * Enforces the body limit before anything parses the body: a declared `Content-Length` over the limit is
 * refused without reading; a body without one (chunked) is read up to the limit and refused as soon as it
 * goes over, otherwise handed on buffered. Returns the request to continue with, or the refusal.
 */
export const limitBody = async (request: Request, limit: number): Promise<Request | PayloadTooLargeError> => {
  const decided = limitDeclared(request, limit)
  if (decided !== undefined) return decided
  const reader = request.body!.getReader()
  const chunks: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > limit) {
      await reader.cancel().catch(() => undefined)
      return tooLarge(limit)
    }
    chunks.push(value)
  }
  const body = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  const headers = new Headers(request.headers)
  headers.delete("transfer-encoding")
  headers.set("content-length", String(total))
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal })
}
