import { Schema } from "effect"

/**
 * The `provider` section of `opencode.json`. Declared here, beside the providers that read it, and
 * composed into the config schema by `config/config.ts`.
 */

/** The wire protocols the host speaks. */
export const ProviderType = Schema.Literals(["openai-compatible", "anthropic", "openai"])
export type ProviderType = typeof ProviderType.Type

/** A model's token limits: the context window, and how much of it the answer may use. */
export const ModelLimit = Schema.Struct({
  context: Schema.Int.check(Schema.isGreaterThan(0)),
  output: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
})
export type ModelLimit = typeof ModelLimit.Type

export const ModelConfig = Schema.Struct({
  /** Token limits; automatic compaction needs them (the built-in catalog supplies known models'). */
  limit: Schema.optional(ModelLimit),
})

export const ProviderConfig = Schema.Struct({
  /** Default: the provider id when it is `anthropic` or `openai`, else `openai-compatible`. */
  type: Schema.optional(ProviderType),
  /** The API endpoint, up to and including the version segment. Required for `openai-compatible`. */
  baseURL: Schema.optional(Schema.String),
  /** Default: `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` for those types. */
  apiKey: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  /** The models offered, beside the built-in catalog's for `anthropic` / `openai`. */
  models: Schema.optional(Schema.Record(Schema.String, ModelConfig)),
  /** Retries of a request that failed with 429, 5xx or a connection error. Default 4; 0 disables. */
  retries: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20 }))),
  /** Longest silence (ms) between two chunks of a response before the step fails. Default 600000. */
  timeout: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 86_400_000 }))),
})
export type ProviderConfig = typeof ProviderConfig.Type

/** Which protocol a provider entry speaks, applying the default for an omitted `type`. */
export const providerType = (id: string, entry: { readonly type?: ProviderType | undefined }): ProviderType =>
  entry.type ?? (id === "anthropic" || id === "openai" ? id : "openai-compatible")

/** The `provider` record; an `openai-compatible` entry must say where its server is. */
export const ProvidersConfig = Schema.Record(Schema.String, ProviderConfig).check(
  Schema.makeFilter((record) =>
    Object.entries(record).flatMap(([id, entry]) =>
      providerType(id, entry) === "openai-compatible" && !entry.baseURL
        ? [{ path: [id, "baseURL"], issue: `provider "${id}" (openai-compatible) needs a baseURL` }]
        : [],
    ),
  ),
)
