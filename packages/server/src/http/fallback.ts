import { Cause, Effect, Option } from "effect"
import { HttpRouter, HttpServerError, HttpServerResponse } from "effect/http"
import { NotFoundError } from "@opencode-ai/protocol"
import type { unhandled } from "effect/Types"
import { unknownError } from "./errors.ts"
import { encodeError } from "./respond.ts"

const respond = (error: Parameters<typeof encodeError>[0]) => {
  const { status, body } = encodeError(error)
  return HttpServerResponse.jsonUnsafe(body, { status })
}

/**
 * The router's last word, around every route: an unknown route is a 404 `NotFoundError` body, and any
 * failure that escaped the endpoint (a defect outside `RequestErrors`) is a 500 `UnknownError` with a
 * logged ref. Never a stack trace, never an empty body.
 */
export const fallback = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, R>) =>
  Effect.catchCause(effect, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
    const failure = Cause.findErrorOption(cause)
    if (Option.isSome(failure) && HttpServerError.isHttpServerError(failure.value)) {
      const reason = failure.value.reason
      if (reason._tag === "RouteNotFound") {
        return Effect.succeed(
          respond(
            new NotFoundError({
              message: `No route for ${reason.request.method} ${reason.request.url.split("?")[0]}`,
            }),
          ),
        )
      }
    }
    return Effect.map(unknownError(cause, "request"), respond)
  })

/** `fallback` around every route, when nothing else (the front door) is installed with it. */
export const Fallback = HttpRouter.middleware(fallback, { global: true })
