import { configJsonSchema, type HostServices, LogLayer } from "@opencode-ai/core"
import { type Context, Effect, Layer, type LogLevel } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { openApiDocument } from "../api/openapi.ts"
import { AuthorizationLive } from "./auth.ts"
import { DbHandlers } from "./db.ts"
import { AgentHandlers, ConfigHandlers, ProviderHandlers } from "./discovery.ts"
import { Fallback } from "./fallback.ts"
import { HealthHandlers } from "./health.ts"
import { MessageHandlers, PartHandlers } from "./message.ts"
import { RequestErrorsLive } from "./middleware.ts"
import { PermissionHandlers } from "./permission.ts"
import { PluginHandlers } from "./plugin.ts"
import { SessionHandlers } from "./session.ts"

export interface AppOptions {
  readonly host: Context.Context<HostServices>
  readonly password?: string | undefined
  readonly logLevel: LogLevel.LogLevel
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
    SessionHandlers,
    MessageHandlers,
    PartHandlers,
    PluginHandlers,
    PermissionHandlers,
    DbHandlers,
    ProviderHandlers,
    AgentHandlers,
    ConfigHandlers,
  ).pipe(
    // Middleware is looked up in the handlers' context when routes are built.
    Layer.provideMerge(Layer.mergeAll(RequestErrorsLive, AuthorizationLive(options.password))),
    Layer.provide(Layer.succeedContext(options.host)),
  )
  return Layer.mergeAll(HttpApiBuilder.layer(Api), OpenApiRoute, ConfigSchemaRoute, Fallback).pipe(
    Layer.provide(handlers),
    Layer.provide(HttpServer.layerServices),
    Layer.provideMerge(LogLayer(options.logLevel)),
  )
}
