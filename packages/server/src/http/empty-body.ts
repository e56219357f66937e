/** Methods whose requests carry a JSON body in this API. */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

/**
 * A request to an operation whose fields are all optional may come without a body: the SDK sends none
 * when no body field is given (`v2.session.create()`, `v2.session.prune({ sessionID })`), as upstream's
 * does. Such a request means "no fields", so it is handed on as the empty object `{}`; the payload
 * decoder would otherwise refuse the missing body as not an object. Operations without a payload ignore
 * it; ones with required fields still name what is missing.
 */
export const emptyBodyAsObject = (request: Request): Request => {
  if (!BODY_METHODS.has(request.method)) return request
  const length = request.headers.get("content-length")
  const empty =
    request.body === null || (length !== null && length.trim() === "0" && !request.headers.has("transfer-encoding"))
  if (!empty) return request
  const headers = new Headers(request.headers)
  headers.set("content-type", "application/json")
  headers.set("content-length", "2")
  return new Request(request.url, { method: request.method, headers, body: "{}", signal: request.signal })
}
