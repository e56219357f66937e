/** The opencode2 host HTTP server: the API definition, its OpenAPI document and `startServer`. */
export { Api, API_VERSION } from "./api/api.ts"
export * from "./api/errors.ts"
export { ServerEvent, DurableEvent, LogEvent } from "./api/event.ts"
export { openApiDocument, openApiText } from "@opencode-ai/protocol"
export {
  AUTH_USER,
  isLoopback,
  ServerConfigError,
  startServer,
  type RunningServer,
  type ServerOptions,
} from "./server.ts"
export { VERSION } from "./version.ts"
