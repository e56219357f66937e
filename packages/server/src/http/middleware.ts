import { Cause, Effect, Layer, Option, SchemaIssue } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { InvalidRequestError, type PayloadTooLargeError, type UnknownError } from "@opencode-ai/protocol"
import { RequestErrors } from "@opencode-ai/protocol"
import { unknownError } from "./errors.ts"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const where: Record<HttpApiError.HttpApiSchemaError["kind"], string> = {
  Params: "path parameter",
  Query: "query parameter",
  Headers: "header",
  Payload: "body",
  Body: "response body",
  ResponseHeaders: "response header",
}

/** A request decoding failure as an `InvalidRequestError` naming the first offending field. */
export const invalidRequest = (error: HttpApiError.HttpApiSchemaError) => {
  const issues = formatIssues(error.cause.issue).issues
  const first = issues[0]
  const path = (first?.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment))
  const field = path.length > 0 ? path.join(".") : undefined
  const detail = first?.message ?? "invalid value"
  if (error.kind === "Payload" && field === undefined && /valid JSON/i.test(detail)) {
    return new InvalidRequestError({ message: "The request body is not valid JSON" })
  }
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : ""
  return new InvalidRequestError({
    message: field
      ? `Invalid ${where[error.kind]} "${field}": ${detail}${more}`
      : `Invalid ${where[error.kind]}: ${detail}${more}`,
    ...(field ? { field } : {}),
  })
}

/**
 * An operation that declares no body still refuses a malformed one, like every operation that has one:
 * a body that is sent must be a JSON object (`{}` is what an absent body reads as on POST).
 */
const noBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  if (request.method === "GET" || request.method === "HEAD") return
  const text = yield* Effect.orElseSucceed(request.text, () => "")
  if (text.trim() === "") return
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return yield* new InvalidRequestError({ message: "The request body is not valid JSON" })
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return yield* new InvalidRequestError({ message: "Invalid body: this operation takes no body (send none, or {})" })
})

/**
 * Implements `RequestErrors`: request decoding failures become 400 `InvalidRequestError`; defects and
 * response encoding failures become 500 `UnknownError` with a logged ref. Declared failures and
 * interruptions pass through untouched.
 */
export const RequestErrorsLive = Layer.succeed(RequestErrors, (httpEffect, { endpoint, group }) =>
  Effect.catchCause(
    endpoint.payload.size === 0 ? Effect.andThen(noBody, httpEffect) : httpEffect,
    (cause): Effect.Effect<never, unhandled | InvalidRequestError | PayloadTooLargeError | UnknownError> => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      const failure = Cause.findErrorOption(cause)
      if (Option.isSome(failure)) {
        const error = failure.value
        if (!HttpApiError.HttpApiSchemaError.is(error)) return Effect.fail(error as unhandled)
        if (error.kind !== "Body" && error.kind !== "ResponseHeaders") return Effect.fail(invalidRequest(error))
      }
      const operation = group.topLevel ? endpoint.identifier : `${group.identifier}.${endpoint.identifier}`
      return Effect.flatMap(unknownError(cause, operation), Effect.fail)
    },
  ),
)
