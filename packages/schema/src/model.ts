import { Schema } from "effect"

/**
 * A model: its provider and its id within that provider (config writes it `"<providerID>/<id>"`).
 * `variant` names a provider-specific request variant; the host passes it through.
 */
export const ModelRef = Schema.Struct({
  id: Schema.String,
  providerID: Schema.String,
  variant: Schema.optional(Schema.String),
}).annotate({ identifier: "ModelRef" })
export type ModelRef = typeof ModelRef.Type

/** `"<providerID>/<id>"`, the config spelling of a {@link ModelRef}. */
export const modelName = (model: ModelRef) => `${model.providerID}/${model.id}`

/** Token counts of one request, or summed over a session. */
export const Tokens = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  reasoning: Schema.Number,
  cache: Schema.Struct({ read: Schema.Number, write: Schema.Number }),
}).annotate({ identifier: "Tokens" })
export type Tokens = typeof Tokens.Type

export const emptyTokens: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }
