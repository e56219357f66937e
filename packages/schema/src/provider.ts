import { Schema } from "effect"
import { ProviderRequest } from "./agent.ts"

const Settings = Schema.Record(Schema.String, Schema.Unknown)

/** How a provider is reached: an AI SDK package, or the host's own client (`native`, e.g. the offline model). */
export const ProviderApi = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("aisdk"),
    package: Schema.String,
    url: Schema.optional(Schema.String),
    settings: Schema.optional(Settings),
  }),
  Schema.Struct({ type: Schema.Literal("native"), url: Schema.optional(Schema.String), settings: Settings }),
]).annotate({ identifier: "ProviderApi" })

/** A usable model provider: upstream's `ProviderV2Info` (never its key). */
export const ProviderInfo = Schema.Struct({
  id: Schema.String,
  integrationID: Schema.optional(Schema.String),
  name: Schema.String,
  disabled: Schema.optional(Schema.Boolean),
  api: ProviderApi,
  request: ProviderRequest,
  /** The environment variable its key is read from, when it has one. */
  env: Schema.optional(Schema.String),
}).annotate({ identifier: "ProviderV2Info" })
export type ProviderInfo = typeof ProviderInfo.Type

const Headers = Schema.Record(Schema.String, Schema.String)

/** A model a session may use: upstream's `ModelV2Info`. `limit.context` drives compaction. */
export const ModelInfo = Schema.Struct({
  id: Schema.String,
  providerID: Schema.String,
  family: Schema.optional(Schema.String),
  name: Schema.String,
  api: Schema.Union([
    Schema.Struct({
      id: Schema.String,
      type: Schema.Literal("aisdk"),
      package: Schema.String,
      url: Schema.optional(Schema.String),
      settings: Schema.optional(Settings),
    }),
    Schema.Struct({
      id: Schema.String,
      type: Schema.Literal("native"),
      url: Schema.optional(Schema.String),
      settings: Settings,
    }),
  ]),
  capabilities: Schema.Struct({
    tools: Schema.Boolean,
    input: Schema.Array(Schema.String),
    output: Schema.Array(Schema.String),
  }),
  request: Schema.Struct({ headers: Headers, body: Settings, variant: Schema.optional(Schema.String) }),
  variants: Schema.Array(Schema.Struct({ id: Schema.String, headers: Headers, body: Settings })),
  time: Schema.Struct({ released: Schema.Number }),
  cost: Schema.Array(
    Schema.Struct({
      tier: Schema.optional(Schema.Struct({ type: Schema.Literal("context"), size: Schema.Number })),
      input: Schema.Number,
      output: Schema.Number,
      cache: Schema.Struct({ read: Schema.Number, write: Schema.Number }),
    }),
  ),
  status: Schema.Literals(["alpha", "beta", "deprecated", "active"]),
  enabled: Schema.Boolean,
  limit: Schema.Struct({ context: Schema.Number, input: Schema.optional(Schema.Number), output: Schema.Number }),
  /** Whether this is the host's default model. */
  default: Schema.optional(Schema.Boolean),
}).annotate({ identifier: "ModelV2Info" })
export type ModelInfo = typeof ModelInfo.Type
