/**
 * The opencode2 host's domain shapes, declared once as Effect Schemas: what the host stores, what plugins
 * read, what the HTTP API serves and what the SDK's types are generated from. Shared shapes are upstream
 * OpenCode v2's (`@opencode-ai/sdk` `v2` types); the host's additions ride as extra fields and extra events.
 */
export * from "./agent.ts"
export * from "./command.ts"
export * from "./definition.ts"
export * from "./error.ts"
export * from "./event.ts"
export * from "./id.ts"
export * from "./location.ts"
export * from "./mcp.ts"
export * from "./lsp.ts"
export * from "./message.ts"
export * from "./model.ts"
export * from "./origin.ts"
export * from "./page.ts"
export * from "./permission.ts"
export * from "./plugin.ts"
export * from "./prompt.ts"
export * from "./provider.ts"
export * from "./question.ts"
export * from "./session.ts"
export * from "./storage.ts"
export * from "./todo.ts"
export * from "./transcript.ts"
export * from "./wire.ts"
