/**
 * The opencode2 host's HTTP contract, in one home: the HttpApi (groups per concept, upstream OpenCode v2's
 * operations first, then the host's additions), its error bodies and middleware, and the OpenAPI document
 * the SDK is generated from. The server implements it by mapping core services; nothing here runs a host.
 */
export * from "./api.ts"
export * from "./discovery.ts"
export * from "./envelope.ts"
export * from "./errors.ts"
export * from "./event.ts"
export * from "./event-stream.ts"
export * from "./fs.ts"
export * from "./host.ts"
export * from "./mcp.ts"
export * from "./lsp.ts"
export * from "./middleware.ts"
export * from "./openapi.ts"
export * from "./params.ts"
export * from "./permission.ts"
export * from "./revert.ts"
export * from "./question.ts"
export * from "./session.ts"
export * from "./storage.ts"
