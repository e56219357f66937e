import {
  Bus,
  type ConfigShape,
  Database,
  HostLayer,
  type HostServices,
  type InlinePlugin,
  LogLayer,
  Session,
} from "@opencode-ai/core"
import { apiPaths } from "@opencode-ai/protocol"
import { Context, Effect, Exit, Layer, type LogLevel, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { appLayer } from "./http/app.ts"
import { AUTH_USER } from "./http/auth.ts"
import { DEFAULT_BODY_LIMIT } from "./http/body-limit.ts"
import * as BunHttpServer from "./http/bun-server.ts"
import { BunServer } from "./http/bun-server.ts"
import { type CorsOrigins, makeCors, withHeaders } from "./http/cors.ts"
import { makeCrossSiteRule } from "./http/cross-site.ts"
import { unknownErrorSync } from "./http/errors.ts"
import type { EventServices } from "./http/events.ts"
import {
  basicAuth,
  bodyLimit,
  canonicalPath,
  corsPreflight,
  crossSiteRefusal,
  frontDoor as makeFrontDoor,
  hostRule,
  jsonContentType,
  longRequests,
  webClientPages,
} from "./http/front-door.ts"
import { makeHostRule } from "./http/host.ts"
import { ensureJsonError } from "./http/json-errors.ts"
import { OpenStreams } from "./http/open-streams.ts"
import { pathTable } from "./http/path.ts"
import { errorResponse } from "./http/respond.ts"
import type { SseOptions } from "./sse.ts"

export interface ServerOptions {
  /** Interface to bind. Default `127.0.0.1`; anything not loopback needs a `password`. */
  readonly hostname?: string
  /** Port; default 4096, `0` picks a free one. */
  readonly port?: number
  /** SQLite file path, or `:memory:`. */
  readonly database: string
  readonly config: ConfigShape
  /** Plugins given in code, loaded after those named in config. */
  readonly plugins?: ReadonlyArray<InlinePlugin>
  /** Resume claimed sessions on start. Default: `config.server.autoResume ?? true`. */
  readonly autoResume?: boolean
  /** Turns on HTTP Basic auth (user `opencode`) for every route. */
  readonly password?: string
  /**
   * Host names (besides loopback) answered when there is no password; any other `Host` gets 403.
   * Default: `config.server.allowedHosts`.
   */
  readonly allowedHosts?: ReadonlyArray<string>
  /** Origins allowed to call the API from a browser (`"*"` for any). CORS is off without it. */
  readonly cors?: CorsOrigins
  /** Largest request body accepted, in bytes; larger ones get 413 before parsing. Default 1 MiB. */
  readonly bodyLimit?: number
  /** Least severe log level printed. Default `Warn`: no per-request lines. */
  readonly logLevel?: LogLevel.LogLevel
  /** Event stream tuning (subscriber queue bound, heartbeat interval). */
  readonly sse?: SseOptions
  /**
   * The server's own location: where requests that name none work (`location.get`, a session created
   * without a location). Default the process's working directory.
   */
  readonly directory?: string
  /** How long `stop()` lets in-flight requests finish before closing their connections. Default 3000 ms. */
  readonly stopGraceMs?: number
}

/** Where a started server listens. */
export class Listening extends Context.Service<
  Listening,
  {
    /** `http://HOST:PORT`, without a trailing slash. */
    readonly url: string
    readonly hostname: string
    readonly port: number
  }
>()("@opencode-ai/server/Listening") {}

export interface RunningServer extends Readonly<Listening["Service"]> {
  /** Ends open event streams, stops listening and disposes the host (plugins unloaded, database closed). */
  stop(): Promise<void>
  /**
   * Drops the host as a kill would, for crash tests in one process: from this call on nothing it does
   * reaches the database file (the connection turns read-only), connections are cut, and the runtime is
   * torn down without its writes landing. Claims and unfinished answers stay exactly as a SIGKILL leaves them.
   */
  crash(): Promise<void>
}

/** The user name for Basic auth when the server has a password. */
export { AUTH_USER }

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i

export const isLoopback = (hostname: string) => LOOPBACK.test(hostname)

/** Refused configuration (for example a non-loopback address without a password). */
export class ServerConfigError extends Error {
  override readonly name = "ServerConfigError"
}

const defaults = (options: ServerOptions) => {
  const hostname = options.hostname ?? "127.0.0.1"
  const password = options.password === "" ? undefined : options.password
  if (!isLoopback(hostname) && password === undefined) {
    throw new ServerConfigError(
      `Refusing to listen on ${hostname} without a password: set OPENCODE_SERVER_PASSWORD (or bind 127.0.0.1)`,
    )
  }
  return { hostname, password, logLevel: options.logLevel ?? "Warn" }
}

/**
 * The host and its HTTP API as one layer: the host's services, then `Bun.serve` listening (`http/bun-server.ts`),
 * then the router served on it with `HttpRouter.serve`. Every request goes through the front door
 * middleware (`http/front-door.ts`), which makes the checks that must happen before routing (Host rule,
 * CORS preflight, cross-site refusal, Basic auth, path checks, content type, the body limit). Closing its scope ends the event
 * streams, stops listening (gracefully for `stopGraceMs`) and disposes the host. Throws `ServerConfigError`
 * for a refused configuration.
 */
export const serverLayer = (options: ServerOptions) => {
  const { hostname, password, logLevel } = defaults(options)
  const bodyLimitBytes = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const cors = makeCors(options.cors)
  const crossSite = makeCrossSiteRule(options.cors)
  const hosts = makeHostRule({
    password,
    allowedHosts: options.allowedHosts ?? options.config.data.server?.allowedHosts ?? [],
  })
  // Every API path (and the document itself) is a Bun route, matched on the raw request target.
  const paths = pathTable([...apiPaths(), "/openapi.json"])
  const directory = options.directory ?? process.cwd()

  // Config problems that did not stop loading (unknown keys) are said first, as warnings on stderr.
  const warnings = Layer.effectDiscard(
    Effect.forEach(options.config.warnings ?? [], (warning) => Effect.logWarning(warning), { discard: true }),
  ).pipe(Layer.provide(LogLayer(logLevel)))
  const host = HostLayer({
    database: options.database,
    config: options.config,
    ...(options.plugins ? { plugins: options.plugins } : {}),
    ...(options.autoResume !== undefined ? { autoResume: options.autoResume } : {}),
  }).pipe(Layer.provideMerge(LogLayer(logLevel)), Layer.provide(warnings))

  const app = Layer.unwrap(
    Effect.gen(function* () {
      const context = yield* Effect.context<HostServices>()
      const events: EventServices = {
        bus: Context.get(context, Bus),
        session: Context.get(context, Session),
        sse: options.sse ?? {},
        channels: yield* OpenStreams,
        context: context as Context.Context<never>,
      }
      // The front door, for every request, in order (`http/front-door.ts`).
      const frontDoor = makeFrontDoor([
        hostRule(hosts),
        corsPreflight(cors),
        crossSiteRefusal(crossSite),
        basicAuth(password),
        canonicalPath(paths),
        webClientPages,
        longRequests,
        jsonContentType,
        bodyLimit(bodyLimitBytes),
      ])
      return appLayer({ host: context, password, logLevel, directory, events, frontDoor })
    }),
  )

  const listener = BunHttpServer.layer({
    hostname,
    port: options.port ?? 4096,
    routes: paths.routes,
    stopGraceMs: options.stopGraceMs ?? 3000,
    // On the way out, an error status the framework answered without a JSON body gets one, and CORS
    // headers are added.
    respond: async (request, pending) => {
      let response: Response
      try {
        response = await ensureJsonError(request, await pending, bodyLimitBytes)
      } catch (cause) {
        response = errorResponse(unknownErrorSync(cause, `${request.method} ${new URL(request.url).pathname}`))
      }
      return cors.enabled ? withHeaders(response, cors.headers(request.headers.get("origin"))) : response
    },
    error: (cause) => errorResponse(unknownErrorSync(cause, "request")),
  })

  const shown = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname
  const listening = Layer.effect(
    Listening,
    Effect.gen(function* () {
      const port = (yield* BunServer).port as number
      return { url: `http://${shown}:${port}`, hostname, port }
    }),
  )

  // Built bottom up (host, listener, stream registry, router) and released top down: the streams end
  // before the listener waits for in-flight requests, and the host outlives both.
  return BunHttpServer.givesIncoming(HttpRouter.serve(app, { disableLogger: true, disableListenLog: true })).pipe(
    Layer.merge(listening),
    Layer.provideMerge(OpenStreams.layer),
    Layer.provideMerge(listener),
    Layer.provideMerge(host),
  )
}

/**
 * Starts `serverLayer` and resolves once it listens. Rejects (with the host closed again) when the host
 * cannot start or the port cannot be bound.
 */
export const startServer = async (options: ServerOptions): Promise<RunningServer> => {
  const layer = serverLayer(options)
  const scope = Scope.makeUnsafe()
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  let context: Context.Context<Layer.Success<typeof layer>>
  try {
    context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  } catch (cause) {
    await close().catch(() => undefined)
    throw cause
  }
  const server = Context.get(context, BunServer)
  const streams = Context.get(context, OpenStreams)
  let stopping: Promise<void> | undefined
  return {
    ...Context.get(context, Listening),
    stop: () => (stopping ??= close()),
    crash: () =>
      (stopping ??= (async () => {
        // Fence first, synchronously: no transaction is open between two event-loop turns, so every later
        // write fails (SQLITE_READONLY) and what the file holds is what a killed process would have left.
        Context.get(context, Database).fence()
        await server.stop(true)
        for (const stream of [...streams]) stream.close()
        await close().catch(() => undefined)
      })()),
  }
}
