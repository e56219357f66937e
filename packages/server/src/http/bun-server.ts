import { Context, Effect, Layer } from "effect"
import { HttpEffect, HttpServer, type HttpServerResponse } from "effect/http"
import * as NetAddress from "effect/net/NetAddress"

/**
 * What Bun knows about a request that the router does not: the server (to lift the idle timeout of a
 * long request), the request as Bun handed it, and the raw path parameters when it reached one of the
 * registered routes (undefined when it fell through to `fetch`). Given with each request.
 */
export class Incoming extends Context.Service<
  Incoming,
  {
    readonly server: Bun.Server<undefined>
    readonly request: Request
    readonly params: Readonly<Record<string, string>> | undefined
  }
>()("@opencode-ai/server/http/Incoming") {}

/** The listening Bun server, for what `HttpServer` does not say: cutting every connection at once. */
export class BunServer extends Context.Service<BunServer, Bun.Server<undefined>>()(
  "@opencode-ai/server/http/BunServer",
) {}

export interface BunServerOptions {
  readonly hostname: string
  readonly port: number
  /**
   * Route patterns Bun matches on the raw request target (`/api/session/:sessionID`); a request that
   * reaches one carries its raw `params` in `Incoming`. Every other request falls through to the same handler.
   */
  readonly routes: ReadonlyArray<string>
  /** How long stopping lets in-flight requests finish before closing their connections. */
  readonly stopGraceMs: number
  /** The last step on the way out, on the web response (for what must hold whatever answered). */
  readonly respond: (request: Request, response: Promise<Response>) => Promise<Response>
  /** The answer to a request whose handler threw. */
  readonly error: (cause: unknown) => Response
}

const addressOf = (hostname: string, port: number): NetAddress.SocketAddress => {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1")
  const parsed = NetAddress.inetAddressFromHostString(bare === "localhost" ? "127.0.0.1" : bare, port)
  // A host name (not an address) is shown as the unspecified address: the address is only informative.
  return parsed._tag === "Success" ? parsed.success : NetAddress.inetAddressFromStringUnsafe(`0.0.0.0:${port}`)
}

/**
 * `HttpServer` over `Bun.serve`: listening when the layer is built, stopped gracefully (for `stopGraceMs`,
 * then forcibly) when its scope closes. Requests that arrive before something is served get 503.
 */
export const layer = (options: BunServerOptions): Layer.Layer<HttpServer.HttpServer | BunServer> =>
  Layer.effectContext(
    Effect.gen(function* () {
      let handle: ((request: Request, incoming: Incoming["Service"]) => Promise<Response>) | undefined
      const answer = (
        request: Request,
        server: Bun.Server<undefined>,
        params: Readonly<Record<string, string>> | undefined,
      ) =>
        options.respond(
          request,
          handle
            ? handle(request, { server, request, params })
            : Promise.resolve(new Response("Starting", { status: 503 })),
        )
      const routes: Record<string, (request: Bun.BunRequest, server: Bun.Server<undefined>) => Promise<Response>> = {}
      for (const pattern of options.routes)
        routes[pattern] = (request, server) => answer(request, server, request.params as Record<string, string>)

      const server = yield* Effect.acquireRelease(
        Effect.try({
          try: () =>
            Bun.serve({
              hostname: options.hostname,
              port: options.port,
              idleTimeout: 120,
              // The body limit is enforced (with a JSON 413) by the front door; Bun's own limit would answer
              // an empty 413 before the front door sees the request.
              maxRequestBodySize: Number.MAX_SAFE_INTEGER,
              routes,
              fetch: (request, server) => answer(request, server, undefined),
              error: options.error,
            }),
          catch: (cause) => cause,
        }).pipe(Effect.orDie),
        (server) =>
          Effect.promise(async () => {
            let timer: ReturnType<typeof setTimeout> | undefined
            const graceful = await Promise.race([
              server.stop(false).then(() => true),
              new Promise<boolean>((resolve) => {
                timer = setTimeout(() => resolve(false), options.stopGraceMs)
              }),
            ])
            clearTimeout(timer)
            if (!graceful) await server.stop(true)
          }),
      )

      const http = HttpServer.make({
        address: addressOf(options.hostname, server.port as number),
        serve: (httpEffect, middleware) =>
          Effect.gen(function* () {
            const context = yield* Effect.context<never>()
            const handler = HttpEffect.toWebHandlerWith(context)(
              httpEffect as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>,
              middleware,
            ) as (request: Request, context: Context.Context<Incoming>) => Promise<Response>
            handle = (request, incoming) => handler(request, Context.make(Incoming, incoming))
            yield* Effect.addFinalizer(() =>
              Effect.sync(() => {
                handle = undefined
              }),
            )
          }),
      })
      return Context.make(HttpServer.HttpServer, http).pipe(Context.add(BunServer, server))
    }),
  )

/**
 * A layer served by this server, with `Incoming` no longer required: the server gives it with each
 * request, which the router's types cannot see.
 */
export const givesIncoming = <A, E, R>(served: Layer.Layer<A, E, R>): Layer.Layer<A, E, Exclude<R, Incoming>> =>
  served as Layer.Layer<A, E, Exclude<R, Incoming>>
