import { Bus, type ConfigShape, Database, HostLayer, type InlinePlugin, LogLayer, Session } from "@opencode-ai/core"
import { apiPaths } from "@opencode-ai/protocol"
import { Context, Effect, Layer, type LogLevel, ManagedRuntime } from "effect"
import { HttpRouter } from "effect/http"
import { appLayer } from "./http/app.ts"
import { AUTH_USER } from "./http/auth.ts"
import { DEFAULT_BODY_LIMIT } from "./http/body-limit.ts"
import { type CorsOrigins, makeCors, withHeaders } from "./http/cors.ts"
import { makeCrossSiteRule } from "./http/cross-site.ts"
import { unknownErrorSync } from "./http/errors.ts"
import type { EventServices, OpenStream } from "./http/events.ts"
import {
  basicAuth,
  bodyLimit,
  canonicalPath,
  corsPreflight,
  crossSiteRefusal,
  frontDoor as makeFrontDoor,
  hostRule,
  Incoming,
  jsonContentType,
  sideRoutes,
  webClientPages,
} from "./http/front-door.ts"
import { makeHostRule } from "./http/host.ts"
import { ensureJsonError } from "./http/json-errors.ts"
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

export interface RunningServer {
  /** `http://HOST:PORT`, without a trailing slash. */
  readonly url: string
  readonly hostname: string
  readonly port: number
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

/**
 * Starts the host and serves its HTTP API on Bun: every request goes through `HttpRouter.toWebHandler`,
 * whose front door middleware (`http/front-door.ts`) makes the checks that must happen before routing
 * (Host rule, CORS preflight, cross-site refusal, Basic auth, path checks, content type, the body limit)
 * and serves the two server-sent-event streams and `fs.read` beside the HttpApi routes.
 */
export const startServer = async (options: ServerOptions): Promise<RunningServer> => {
  const hostname = options.hostname ?? "127.0.0.1"
  const password = options.password === "" ? undefined : options.password
  if (!isLoopback(hostname) && password === undefined) {
    throw new ServerConfigError(
      `Refusing to listen on ${hostname} without a password: set OPENCODE_SERVER_PASSWORD (or bind 127.0.0.1)`,
    )
  }
  const bodyLimitBytes = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const logLevel = options.logLevel ?? "Warn"
  const cors = makeCors(options.cors)
  const crossSite = makeCrossSiteRule(options.cors)
  const hosts = makeHostRule({
    password,
    allowedHosts: options.allowedHosts ?? options.config.data.server?.allowedHosts ?? [],
  })
  // Every API path (and the document itself) is a Bun route, matched on the raw request target.
  const paths = pathTable([...apiPaths(), "/openapi.json"])

  const runtime = ManagedRuntime.make(
    HostLayer({
      database: options.database,
      config: options.config,
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(options.autoResume !== undefined ? { autoResume: options.autoResume } : {}),
    }).pipe(Layer.provideMerge(LogLayer(logLevel))),
  )
  let host: Awaited<ReturnType<typeof runtime.context>>
  try {
    // Config problems that did not stop loading (unknown keys) are said first, as warnings on stderr.
    for (const warning of options.config.warnings ?? []) {
      Effect.runSync(Effect.logWarning(warning).pipe(Effect.provide(LogLayer(logLevel))))
    }
    host = await runtime.context()
  } catch (cause) {
    await runtime.dispose().catch(() => undefined)
    throw cause
  }

  const directory = options.directory ?? process.cwd()
  const channels = new Set<OpenStream>()
  const events: EventServices = {
    bus: Context.get(host, Bus),
    session: Context.get(host, Session),
    sse: options.sse ?? {},
    channels,
    context: host,
  }
  // The front door, for every request, in order (`http/front-door.ts`).
  const frontDoor = makeFrontDoor([
    hostRule(hosts),
    corsPreflight(cors),
    crossSiteRefusal(crossSite),
    basicAuth(password),
    canonicalPath(paths),
    webClientPages,
    sideRoutes(events, directory),
    jsonContentType,
    bodyLimit(bodyLimitBytes),
  ])
  const web = HttpRouter.toWebHandler(appLayer({ host, password, logLevel, directory, frontDoor }), {
    disableLogger: true,
  })

  /**
   * Every request goes through the router: `params` are the raw path parameters when the request reached
   * one of the API routes, undefined when it fell through to `fetch`. On the way out, an error status the
   * framework answered without a JSON body gets one, and CORS headers are added.
   */
  const answer = async (
    request: Request,
    server: Bun.Server<undefined>,
    params: Readonly<Record<string, string>> | undefined,
  ): Promise<Response> => {
    let response: Response
    try {
      response = await ensureJsonError(
        request,
        await web.handler(request, Context.make(Incoming, { server, request, params })),
        bodyLimitBytes,
      )
    } catch (cause) {
      response = errorResponse(unknownErrorSync(cause, `${request.method} ${new URL(request.url).pathname}`))
    }
    return cors.enabled ? withHeaders(response, cors.headers(request.headers.get("origin"))) : response
  }
  const routes: Record<string, (request: Bun.BunRequest, server: Bun.Server<undefined>) => Promise<Response>> = {}
  for (const pattern of paths.routes)
    routes[pattern] = (request, server) => answer(request, server, request.params as Record<string, string>)

  let server: Bun.Server<undefined>
  try {
    server = Bun.serve({
      hostname,
      port: options.port ?? 4096,
      idleTimeout: 120,
      // The body limit is enforced (with a JSON 413) by `limitBody`; Bun's own limit would answer an
      // empty 413 before the front door sees the request.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      routes,
      fetch: (request, server) => answer(request, server, undefined),
      error: (cause) => errorResponse(unknownErrorSync(cause, "request")),
    })
  } catch (cause) {
    await web.dispose().catch(() => undefined)
    await runtime.dispose().catch(() => undefined)
    throw cause
  }

  const port = server.port as number
  const shown = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname
  let stopping: Promise<void> | undefined
  return {
    url: `http://${shown}:${port}`,
    hostname,
    port,
    stop: () =>
      (stopping ??= (async () => {
        // End the event streams, let in-flight requests finish for a moment, then close what is left.
        for (const channel of [...channels]) channel.finish()
        let timer: ReturnType<typeof setTimeout> | undefined
        const graceful = await Promise.race([
          server.stop(false).then(() => true),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), options.stopGraceMs ?? 3000)
          }),
        ])
        clearTimeout(timer)
        if (!graceful) await server.stop(true)
        await web.dispose()
        await runtime.dispose()
      })()),
    crash: () =>
      (stopping ??= (async () => {
        // Fence first, synchronously: no transaction is open between two event-loop turns, so every later
        // write fails (SQLITE_READONLY) and what the file holds is what a killed process would have left.
        Context.get(host, Database).fence()
        await server.stop(true)
        for (const channel of [...channels]) channel.close()
        await web.dispose().catch(() => undefined)
        await runtime.dispose().catch(() => undefined)
      })()),
  }
}
