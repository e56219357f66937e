import {
  type HttpError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from "@opencode-ai/protocol"
import { unknownErrorSync } from "./errors.ts"
import { encodeError } from "./respond.ts"

const isJson = (response: Response) => /\bjson\b/i.test(response.headers.get("content-type") ?? "")

/** The tagged error that stands for a bare status the framework answered by itself. */
const forStatus = (status: number, text: string, context: string, limit: number): HttpError => {
  const detail = text.trim().slice(0, 200)
  if (status === 415)
    return new UnsupportedMediaTypeError({ message: detail || "Unsupported Content-Type: request bodies are JSON" })
  if (status === 413)
    return new PayloadTooLargeError({ message: `The request body is larger than the limit of ${limit} bytes`, limit })
  if (status === 404 || status === 405) return new NotFoundError({ message: detail || `No route for ${context}` })
  if (status >= 500) return unknownErrorSync(new Error(`${status} ${detail}`), context)
  return new InvalidRequestError({ message: detail || `The request was refused (HTTP ${status})` })
}

/**
 * The last guard on the way out: an error status whose body is not JSON (one the framework answered by
 * itself) gets the tagged JSON body its status stands for, so every non-2xx carries `_tag` and `message`.
 * The status is kept. Responses to HEAD have no body by definition and pass unchanged.
 */
export const ensureJsonError = async (request: Request, response: Response, limit: number): Promise<Response> => {
  if (response.status < 400 || request.method === "HEAD" || isJson(response)) return response
  const text = await response.text().catch(() => "")
  const context = `${request.method} ${new URL(request.url).pathname}`
  const headers = new Headers(response.headers)
  headers.delete("content-type")
  headers.delete("content-length")
  return Response.json(encodeError(forStatus(response.status, text, context, limit)).body, {
    status: response.status,
    headers,
  })
}
