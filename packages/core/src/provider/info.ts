import { Schema } from "effect"
import { ModelLimit, ProviderType } from "../config/provider.ts"

/** A model a provider offers, with its token limits when known. */
export const ModelInfo = Schema.Struct({
  id: Schema.String,
  limit: Schema.optional(ModelLimit),
})
export type ModelInfo = typeof ModelInfo.Type

/** A usable provider as discovery reports it: never its key or headers. */
export const ProviderInfo = Schema.Struct({
  id: Schema.String,
  type: Schema.Union([ProviderType, Schema.Literal("offline")]),
  /** `config` (an entry in `provider`), `env` (only its conventional key variable is set) or `builtin`. */
  source: Schema.Literals(["config", "env", "builtin"]),
  baseURL: Schema.optional(Schema.String),
  models: Schema.Array(ModelInfo),
  /** True when any model id is accepted (an `openai-compatible` entry that lists no models). */
  anyModel: Schema.Boolean,
  /** Retries of transient failures. */
  retries: Schema.Number,
  /** Longest silence of a response stream, in ms. */
  timeout: Schema.Number,
})
export type ProviderInfo = typeof ProviderInfo.Type

/** `GET /api/provider`: the providers and the default model. */
export const ProviderList = Schema.Struct({
  /** `<providerID>/<modelID>` used when a prompt, its session and its agent name none. */
  default: Schema.String,
  items: Schema.Array(ProviderInfo),
})
export type ProviderList = typeof ProviderList.Type
