import { UnsupportedMediaTypeError } from "@opencode-ai/protocol"

/** `application/json`, with any parameters (`; charset=utf-8`); the payload decoder takes nothing else. */
const JSON_TYPE = /^application\/json\s*(?:;.*)?$/i

/** Methods whose requests carry a body in this API. */
export const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"])

/**
 * Every request body is JSON. A request that carries a body, or declares a
 * `Content-Type` on a method with a body, must declare JSON; anything else is refused with 415
 * `UnsupportedMediaTypeError` before the body is read.
 */
export const checkContentType = (request: Request): UnsupportedMediaTypeError | undefined => {
  const type = request.headers.get("content-type")
  const length = request.headers.get("content-length")
  const hasBody = request.headers.has("transfer-encoding") || (length !== null && length.trim() !== "0")
  if (!hasBody && !(type !== null && BODY_METHODS.has(request.method))) return undefined
  if (type !== null && JSON_TYPE.test(type.trim())) return undefined
  return new UnsupportedMediaTypeError({
    message:
      type === null || type.trim() === ""
        ? "The request body needs `Content-Type: application/json`"
        : `Unsupported Content-Type ${JSON.stringify(type.slice(0, 100))}: request bodies are JSON (application/json)`,
  })
}
