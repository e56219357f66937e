import type { HttpError, PayloadTooLargeError } from "@opencode-ai/protocol"
import { Cause, Context, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { authorized, unauthorized } from "./auth.ts"
import { Incoming } from "./bun-server.ts"
import { limitBody, limitDeclared } from "./body-limit.ts"
import { checkContentType } from "./content-type.ts"
import type { makeCors } from "./cors.ts"
import type { CrossSiteRule } from "./cross-site.ts"
import { emptyBodyAsObject } from "./empty-body.ts"
import { unknownErrorSync } from "./errors.ts"
import type { HostRule } from "./host.ts"
import { checkParams, nonCanonical, type PathTable } from "./path.ts"
import { errorResponse } from "./respond.ts"
import { mayBeWebClient, webClient } from "./web-client.ts"

/**
 * The front door as router middleware: every check that must happen before a request is routed, each an
 * `HttpMiddleware` around the router, in the order they apply (`frontDoor`). A refusal is the typed error's
 * JSON body (`errorResponse`), passed through the router untouched, so it is the same bytes, status and
 * headers whichever route was asked for, or none.
 */

type Handler = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  unhandled,
  HttpServerRequest.HttpServerRequest | Incoming
>

/** Router middleware: wraps what comes after it (the later checks, then the route). */
export type Middleware = (next: Handler) => Handler

/** A web `Response` as the router's answer: `toWeb` hands a raw `Response` body on as it is. */
const answer = (response: Response) => Effect.succeed(HttpServerResponse.raw(response))

/**
 * A refusal's typed JSON body. The router answers `HEAD` without the body, so its length is said
 * explicitly, as Bun says it for a body it drops.
 */
const refuse = (error: HttpError, headers?: Record<string, string>): Handler =>
  Effect.withFiber((fiber) => {
    const response = errorResponse(error, headers)
    if (Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).method !== "HEAD") return answer(response)
    return Effect.map(
      Effect.promise(() => response.arrayBuffer()),
      (body) =>
        HttpServerResponse.raw(
          new Response(null, {
            status: response.status,
            headers: { ...Object.fromEntries(response.headers), "content-length": String(body.byteLength) },
          }),
        ),
    )
  })

/**
 * Runs `f` with the request as the web handler got it (Bun's, before the body checks replaced it) and what
 * Bun knows about it, read from the fiber's context in one step (every request passes every check).
 */
const withIncoming = (f: (request: Request, incoming: Incoming["Service"]) => Handler): Handler =>
  Effect.withFiber((fiber) =>
    f(
      Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).source as Request,
      Context.getUnsafe(fiber.context, Incoming),
    ),
  )

/** The (normalised) path of the request, without parsing a URL. */
const pathOf = (request: Request) => {
  const start = request.url.indexOf("/", request.url.indexOf("//") + 2)
  if (start === -1) return "/"
  const end = request.url.indexOf("?", start)
  return request.url.slice(start, end === -1 ? undefined : end)
}

const withRequest =
  (check: (request: Request, next: Handler) => Handler): Middleware =>
  (next) =>
    withIncoming((request) => check(request, next))

/** First of all, before anything else can answer: the `Host` rule (DNS-rebinding defence). */
export const hostRule = (hosts: HostRule): Middleware =>
  withRequest((request, next) => {
    const header = request.headers.get("host")
    return hosts.allows(header) ? next : refuse(hosts.refusal(header))
  })

/** CORS preflight, answered before authentication (browsers send it without credentials). */
export const corsPreflight = (cors: ReturnType<typeof makeCors>): Middleware =>
  withRequest((request, next) => {
    const preflight = cors.preflight(request)
    return preflight ? answer(preflight) : next
  })

/** A state-changing request a foreign web page made the browser send (CSRF), password or not. */
export const crossSiteRefusal = (rule: CrossSiteRule): Middleware =>
  withRequest((request, next) => {
    const foreign = rule.refusal(request)
    if (!foreign) return next
    // An unread body would be left on the connection: close it.
    return refuse(foreign, request.body === null ? {} : { connection: "close" })
  })

/** HTTP Basic auth (user `opencode`) on every route when the server has a password. */
export const basicAuth = (password: string | undefined): Middleware =>
  withRequest((request, next) =>
    authorized(password, request.headers.get("authorization"))
      ? next
      : refuse(unauthorized(), { "www-authenticate": `Basic realm="opencode2", charset="UTF-8"` }),
  )

/**
 * The path as the client sent it: the raw parameters of the API route it reached, or, for a request that
 * reached none, a normalised path that is an API path (dot segments, backslashes) or has an empty segment
 * (the router would collapse `//`).
 */
export const canonicalPath =
  (paths: PathTable): Middleware =>
  (next) =>
    withIncoming((request, incoming) => {
      const pathname = new URL(request.url).pathname
      const bad = incoming.params
        ? checkParams(incoming.params)
        : paths.matches(pathname) || pathname.includes("//")
          ? nonCanonical()
          : undefined
      return bad ? refuse(bad) : next
    })

/** The web client's pages and chunks, behind the same checks as the API. */
export const webClientPages: Middleware = withRequest((request, next) =>
  mayBeWebClient(request.method, pathOf(request))
    ? Effect.flatMap(
        Effect.promise(() => webClient(request, new URL(request.url))),
        (page) => (page ? answer(page) : next),
      )
    : next,
)

const EVENT_PATH = /^\/api\/(session\/[^/]+\/)?event\/?$/
const WAIT_PATH = /^\/api\/session\/[^/]+\/wait\/?$/

/**
 * Requests that may outlast Bun's idle timeout are exempt from it: the two event streams, and waiting
 * for a turn (`session.wait`).
 */
export const longRequests: Middleware = (next) =>
  withIncoming((request, incoming) => {
    const pathname = pathOf(request)
    if (
      (request.method === "GET" && EVENT_PATH.test(pathname)) ||
      (request.method === "POST" && WAIT_PATH.test(pathname))
    )
      incoming.server.timeout(incoming.request, 0)
    return next
  })

/** Every request body is JSON: anything else is refused with 415 before the body is read. */
export const jsonContentType: Middleware = withRequest((request, next) => {
  const unsupported = checkContentType(request)
  return unsupported ? refuse(unsupported, { connection: "close" }) : next
})

/**
 * The body limit, before anything parses the body (413 past it); the route then sees the body buffered
 * when it was chunked, and an absent body as `{}`.
 */
export const bodyLimit =
  (limit: number): Middleware =>
  (next) =>
    withIncoming((request) => {
      const go = (limited: Request | PayloadTooLargeError) => {
        if (!(limited instanceof Request)) return refuse(limited, { connection: "close" })
        const body = emptyBodyAsObject(limited)
        return body === request
          ? next
          : Effect.provideService(next, HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(body))
      }
      // Only a chunked body is read here; the rest is decided from the headers.
      const declared = limitDeclared(request, limit)
      return declared !== undefined
        ? go(declared)
        : Effect.flatMap(
            Effect.promise(() => limitBody(request, limit)),
            go,
          )
    })

/**
 * The checks in the order they apply, around `next` (the router). A defect in a check is a 500
 * `UnknownError` with a logged ref, like one anywhere else.
 */
export const frontDoor =
  (middleware: ReadonlyArray<Middleware>): Middleware =>
  (next) => {
    const handler = middleware.reduceRight<Handler>((inner, outer) => outer(inner), next)
    return Effect.catchCause(handler, (cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.failCause(cause)
        : withIncoming((request) =>
            refuse(unknownErrorSync(Cause.squash(cause), `${request.method} ${new URL(request.url).pathname}`)),
          ),
    )
  }
