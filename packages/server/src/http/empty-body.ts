import { BODY_METHODS } from "./content-type.ts"

/**
 * A POST, PUT or PATCH without a body reads as the empty JSON object. Generated clients (this host's SDK
 * and upstream's) send no body at all when a call sets none of the body's fields (`session.create()`,
 * `session.prune({ sessionID })`), which means "every default", not a malformed request; an operation with
 * required fields then names the first one missing instead of refusing a body that was never sent. Runs
 * after the body limit, which has made a chunked body's length known.
 */
export const emptyBodyAsObject = (request: Request): Request => {
  if (!BODY_METHODS.has(request.method)) return request
  const length = request.headers.get("content-length")
  const empty = request.body === null || (length !== null && length.trim() === "0")
  if (!empty) return request
  const headers = new Headers(request.headers)
  headers.delete("transfer-encoding")
  headers.set("content-type", "application/json")
  headers.set("content-length", "2")
  return new Request(request.url, { method: request.method, headers, body: "{}", signal: request.signal })
}
