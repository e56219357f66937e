import { configJsonSchema, type HostServices, LogLayer } from "@opencode-ai/core"
import { type Context, Effect, Layer, type LogLevel } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api, openApiDocument } from "@opencode-ai/protocol"
import { AuthorizationLive } from "./auth.ts"
import {
  AgentHandlers,
  CommandHandlers,
  HealthHandlers,
  LocationHandlers,
  ModelHandlers,
  PermissionRequestHandlers,
  ProviderHandlers,
  SkillHandlers,
} from "./discovery.ts"
import { Fallback, fallback } from "./fallback.ts"
import type { Middleware } from "./front-door.ts"
import { EventHandlers, type EventServices, EventStreams } from "./events.ts"
import { FsHandlers } from "./fs.ts"
import { ServerDirectory } from "./location.ts"
import { RequestErrorsLive } from "./middleware.ts"
import { SessionPermissionHandlers } from "./permission.ts"
import { SessionRevertHandlers } from "./revert.ts"
import { QuestionRequestHandlers, SessionQuestionHandlers, SessionTodoHandlers } from "./question.ts"
import { ConfigHandlers, PluginHandlers } from "./plugin.ts"
import { McpHandlers } from "./mcp.ts"
import { LspHandlers } from "./lsp.ts"
import { SessionHandlers } from "./session.ts"
import { StorageHandlers } from "./storage.ts"

export interface AppOptions {
  readonly host: Context.Context<HostServices>
  readonly password?: string | undefined
  readonly logLevel: LogLevel.LogLevel
  /** The server's own location (see `ServerDirectory`). */
  readonly directory: string
  /** What the event streams run with. */
  readonly events: EventServices
  /** The front door's checks (`front-door.ts`), around the router and its fallback. */
  readonly frontDoor?: Middleware
}

const OpenApiRoute = HttpRouter.add(
  "GET",
  "/openapi.json",
  Effect.sync(() => HttpServerResponse.jsonUnsafe(openApiDocument())),
)

/**
 * `GET /config.schema.json`: the JSON Schema of `opencode.json`, generated from the config Schema. A plain
 * router route, so the Host rule and authentication apply to it like to every route.
 */
const ConfigSchemaRoute = HttpRouter.add(
  "GET",
  "/config.schema.json",
  Effect.sync(() => HttpServerResponse.jsonUnsafe(configJsonSchema())),
)

/**
 * The HttpApi routes as a router layer, over an already started host: handlers get the host's services,
 * the API middleware (request errors, auth) and the router fallback (404 / 500 bodies).
 */
export const appLayer = (options: AppOptions) => {
  const handlers = Layer.mergeAll(
    HealthHandlers,
    LocationHandlers,
    AgentHandlers,
    SessionHandlers,
    SessionPermissionHandlers,
    SessionRevertHandlers,
    ModelHandlers,
    ProviderHandlers,
    PermissionRequestHandlers,
    SessionQuestionHandlers,
    QuestionRequestHandlers,
    SessionTodoHandlers,
    FsHandlers,
    CommandHandlers,
    SkillHandlers,
    StorageHandlers,
    PluginHandlers,
    ConfigHandlers,
    McpHandlers,
    LspHandlers,
    EventHandlers,
  ).pipe(
    // Middleware is looked up in the handlers' context when routes are built.
    Layer.provideMerge(Layer.mergeAll(RequestErrorsLive, AuthorizationLive(options.password))),
    Layer.provide(Layer.succeedContext(options.host)),
    Layer.provide(Layer.succeed(ServerDirectory, options.directory)),
    Layer.provide(Layer.succeed(EventStreams, options.events)),
  )
  const frontDoor = options.frontDoor
  const outermost = frontDoor
    ? HttpRouter.middleware((effect) => frontDoor(fallback(effect)), { global: true })
    : Fallback
  return Layer.mergeAll(HttpApiBuilder.layer(Api), OpenApiRoute, ConfigSchemaRoute, outermost).pipe(
    Layer.provide(handlers),
    Layer.provide(HttpServer.layerServices),
    Layer.provideMerge(LogLayer(options.logLevel)),
  )
}
