/**
 * CORS, off unless origins are configured. `"*"` allows any origin. Preflight requests are answered here,
 * before authentication (browsers send them without credentials).
 */
import { ForbiddenError } from "@opencode-ai/protocol"
import { errorResponse } from "./respond.ts"

export type CorsOrigins = string | ReadonlyArray<string>

const METHODS = "GET, POST, PATCH, DELETE, OPTIONS"
const HEADERS = "authorization, content-type, last-event-id"

export const makeCors = (origins: CorsOrigins | undefined) => {
  const list = origins === undefined ? [] : typeof origins === "string" ? [origins] : [...origins]
  const any = list.includes("*")
  const allowed = (origin: string | null): origin is string => origin !== null && (any || list.includes(origin))
  const enabled = list.length > 0

  return {
    enabled,
    /** The response headers for a request from `origin`, or none when it is not allowed. */
    headers(origin: string | null): Record<string, string> {
      if (!enabled || !allowed(origin)) return {}
      return { "access-control-allow-origin": origin, "access-control-allow-credentials": "true", vary: "Origin" }
    },
    /** Answers a preflight request, or undefined when the request is not one (or CORS is off). */
    preflight(request: Request): Response | undefined {
      if (!enabled || request.method !== "OPTIONS" || !request.headers.has("access-control-request-method")) {
        return undefined
      }
      const origin = request.headers.get("origin")
      if (!allowed(origin)) {
        // (`allowed` narrows `origin` to null here, but a string origin can be refused too.)
        const given = request.headers.get("origin")
        const shown = given === null ? "a request without an Origin" : `origin ${JSON.stringify(given.slice(0, 200))}`
        return errorResponse(
          new ForbiddenError({ message: `CORS preflight refused for ${shown}: not in the allowed origins` }),
          {
            vary: "Origin",
          },
        )
      }
      return new Response(null, {
        status: 204,
        headers: {
          ...this.headers(origin),
          "access-control-allow-methods": METHODS,
          "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? HEADERS,
          "access-control-max-age": "600",
        },
      })
    },
  }
}

/** Adds headers to a response (responses from `fetch` handlers may have immutable headers). */
export const withHeaders = (response: Response, headers: Record<string, string>) => {
  const entries = Object.entries(headers)
  if (entries.length === 0) return response
  try {
    for (const [key, value] of entries) response.headers.set(key, value)
    return response
  } catch {
    const copy = new Response(response.body, response)
    for (const [key, value] of entries) copy.headers.set(key, value)
    return copy
  }
}
