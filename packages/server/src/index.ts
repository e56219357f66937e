/** The opencode2 host HTTP server: `serverLayer` (and `startServer` over it), over the HTTP contract of `@opencode-ai/protocol`. */
export { Api, API_VERSION, openApiDocument, openApiText } from "@opencode-ai/protocol"
export * from "@opencode-ai/protocol/errors"
export {
  AUTH_USER,
  isLoopback,
  Listening,
  ServerConfigError,
  serverLayer,
  startServer,
  type RunningServer,
  type ServerOptions,
} from "./server.ts"
export { VERSION } from "./version.ts"
