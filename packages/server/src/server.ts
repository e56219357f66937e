import { Bus, type ConfigShape, Database, HostLayer, type InlinePlugin, Session } from "@opencode-ai/core"
import { Context, Layer, type LogLevel, ManagedRuntime, References } from "effect"
import { HttpRouter } from "effect/http"
import { appLayer } from "./http/app.ts"
import { AUTH_USER, authorized, unauthorized } from "./http/auth.ts"
import { DEFAULT_BODY_LIMIT, limitBody } from "./http/body-limit.ts"
import { type CorsOrigins, makeCors, withHeaders } from "./http/cors.ts"
import { unknownErrorSync } from "./http/errors.ts"
import { type EventServices, eventStream, logStream } from "./http/events.ts"
import { errorResponse } from "./http/respond.ts"
import { webClient } from "./http/web-client.ts"
import type { SseChannel, SseOptions } from "./sse.ts"

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
  /** Origins allowed to call the API from a browser (`"*"` for any). CORS is off without it. */
  readonly cors?: CorsOrigins
  /** Largest request body accepted, in bytes; larger ones get 413 before parsing. Default 1 MiB. */
  readonly bodyLimit?: number
  /** Least severe log level printed. Default `Warn`: no per-request lines. */
  readonly logLevel?: LogLevel.LogLevel
  /** Event stream tuning (subscriber queue bound, heartbeat interval). */
  readonly sse?: SseOptions
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
}

/** The user name for Basic auth when the server has a password. */
export { AUTH_USER }

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i

export const isLoopback = (hostname: string) => LOOPBACK.test(hostname)

/** Refused configuration (for example a non-loopback address without a password). */
export class ServerConfigError extends Error {
  override readonly name = "ServerConfigError"
}

const EVENT_PATH = "/api/event"
const LOG_PATH = /^\/api\/session\/([^/]+)\/log\/?$/
const WAIT_PATH = /^\/api\/session\/[^/]+\/wait\/?$/

const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * Starts the host and serves its HTTP API on Bun: the HttpApi routes through `HttpRouter.toWebHandler`,
 * with a small front door for what must happen before routing (CORS preflight, Basic auth, the body
 * limit) and for the two server-sent-event streams.
 */
export const startServer = async (options: ServerOptions): Promise<RunningServer> => {
  const hostname = options.hostname ?? "127.0.0.1"
  const password = options.password === "" ? undefined : options.password
  if (!isLoopback(hostname) && password === undefined) {
    throw new ServerConfigError(
      `Refusing to listen on ${hostname} without a password: set OPENCODE_SERVER_PASSWORD (or bind 127.0.0.1)`,
    )
  }
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
  const logLevel = options.logLevel ?? "Warn"
  const cors = makeCors(options.cors)

  const runtime = ManagedRuntime.make(
    HostLayer({
      database: options.database,
      config: options.config,
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(options.autoResume !== undefined ? { autoResume: options.autoResume } : {}),
    }).pipe(Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, logLevel))),
  )
  let host: Awaited<ReturnType<typeof runtime.context>>
  try {
    host = await runtime.context()
  } catch (cause) {
    await runtime.dispose().catch(() => undefined)
    throw cause
  }

  const web = HttpRouter.toWebHandler(appLayer({ host, password, logLevel }), { disableLogger: true })
  const channels = new Set<SseChannel>()
  const events: EventServices = {
    bus: Context.get(host, Bus),
    session: Context.get(host, Session),
    database: Context.get(host, Database),
    sse: options.sse ?? {},
    channels,
  }

  const route = async (request: Request, server: Bun.Server<undefined>): Promise<Response> => {
    const preflight = cors.preflight(request)
    if (preflight) return preflight
    if (!authorized(password, request.headers.get("authorization"))) {
      return errorResponse(unauthorized(), { "www-authenticate": `Basic realm="opencode2", charset="UTF-8"` })
    }
    const url = new URL(request.url)
    // The web client's pages and chunks, behind the same checks as the API.
    const client = await webClient(request, url)
    if (client) return client
    if (request.method === "GET") {
      if (url.pathname === EVENT_PATH || url.pathname === `${EVENT_PATH}/`) {
        server.timeout(request, 0)
        return eventStream(events, request, url)
      }
      const log = LOG_PATH.exec(url.pathname)
      if (log) {
        server.timeout(request, 0)
        return logStream(events, request, url, decodeSegment(log[1]!))
      }
    }
    // Waiting for a turn may take longer than the idle timeout.
    if (request.method === "POST" && WAIT_PATH.test(url.pathname)) server.timeout(request, 0)
    const limited = await limitBody(request, bodyLimit)
    if (!(limited instanceof Request)) return errorResponse(limited, { connection: "close" })
    return web.handler(limited)
  }

  let server: Bun.Server<undefined>
  try {
    server = Bun.serve({
      hostname,
      port: options.port ?? 4096,
      idleTimeout: 120,
      fetch: async (request, server) => {
        let response: Response
        try {
          response = await route(request, server)
        } catch (cause) {
          response = errorResponse(unknownErrorSync(cause, `${request.method} ${new URL(request.url).pathname}`))
        }
        return cors.enabled ? withHeaders(response, cors.headers(request.headers.get("origin"))) : response
      },
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
  }
}
