import { Schema } from "effect"

/**
 * The parts of a provider-neutral model request that hooks see: system parts with their provenance, and
 * the messages. Shared by the `session.context` payload (`hook.ts`) and the request hooks (`request.ts`).
 */

/** Where a system part came from. The host sets it; whatever a plugin writes here is overwritten. */
export const SystemOrigin = Schema.Union([
  Schema.Struct({ type: Schema.Literal("agent"), agentID: Schema.String }),
  Schema.Struct({ type: Schema.Literal("host"), name: Schema.Literal("default") }),
  Schema.Struct({ type: Schema.Literal("instructions") }),
  Schema.Struct({ type: Schema.Literal("plugin"), pluginID: Schema.String }),
])
export type SystemOrigin = typeof SystemOrigin.Type

/**
 * One system part of a model request: upstream's system part shape (`{ type: "text", text, cache?,
 * metadata? }`) with the host's provenance beside it (`id`, `origin`). The host tracks the part object it
 * handed you: edit `text` in place and the part keeps its `id` and `origin` whatever you write to them. A
 * new object (including a copy of an existing part) is your part: it gets your origin, and an id already
 * used in this request is renamed. `cache` asks providers that support it to cache the prompt up to here.
 */
export const SystemPart = Schema.Struct({
  type: Schema.Literal("text"),
  id: Schema.mutableKey(Schema.String),
  text: Schema.mutableKey(Schema.String),
  cache: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  origin: Schema.mutableKey(SystemOrigin),
})
export type SystemPart = typeof SystemPart.Type

// Texts are mutable: a `session.context` hook may rewrite them in its copy (e.g. to redact).
export const ModelTextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.mutableKey(Schema.String) })
export const ModelReasoningPart = Schema.Struct({
  type: Schema.Literal("reasoning"),
  text: Schema.mutableKey(Schema.String),
})
export const ModelToolCallPart = Schema.Struct({
  type: Schema.Literal("tool-call"),
  callID: Schema.String,
  tool: Schema.String,
  input: Schema.Unknown,
})
export const ModelToolResultPart = Schema.Struct({
  type: Schema.Literal("tool-result"),
  callID: Schema.String,
  tool: Schema.String,
  output: Schema.mutableKey(Schema.String),
  isError: Schema.Boolean,
})

/** One message of a model request, in the provider-neutral form. */
export const ModelMessage = Schema.Union([
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.mutable(Schema.Array(ModelTextPart)) }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.mutable(Schema.Array(Schema.Union([ModelTextPart, ModelReasoningPart, ModelToolCallPart]))),
  }),
  Schema.Struct({ role: Schema.Literal("tool"), content: Schema.mutable(Schema.Array(ModelToolResultPart)) }),
])
export type ModelMessage = typeof ModelMessage.Type
