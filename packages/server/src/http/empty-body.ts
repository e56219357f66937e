/** Methods whose requests carry a body in this API. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

/**
 * An operation whose parameters are all optional may be called with none: upstream's client then sends no
 * body at all (`client.v2.session.create()` is a bare `POST /api/session`). Such a request is read as the
 * empty JSON object, so it means "all defaults" instead of failing to decode; an operation that needs a
 * field still refuses `{}` with the field named. Runs after the body limit, on an already buffered body.
 */
export const emptyBodyAsObject = (request: Request): Request => {
  if (!BODY_METHODS.has(request.method)) return request
  const length = request.headers.get("content-length")
  const empty = request.body === null || (length !== null && length.trim() === "0")
  if (!empty || request.headers.has("transfer-encoding")) return request
  const headers = new Headers(request.headers)
  headers.set("content-type", "application/json")
  headers.set("content-length", "2")
  return new Request(request.url, { method: request.method, headers, body: "{}", signal: request.signal })
}
