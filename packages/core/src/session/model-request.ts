import { Schema } from "effect"

/**
 * The provider-neutral shape of one primary model request. The runner builds it from the stored
 * transcript, the `session.context` hook may reshape a copy of it, and a provider translates it to its
 * own wire format. Nothing here is ever written back to storage.
 */

/** Where a system part came from. Assigned by the host, never trusted from plugin input. */
export const SystemOrigin = Schema.Union([
  Schema.Struct({ type: Schema.Literal("agent"), agentID: Schema.String }),
  Schema.Struct({ type: Schema.Literal("host"), name: Schema.Literal("default") }),
  Schema.Struct({ type: Schema.Literal("instructions") }),
  Schema.Struct({ type: Schema.Literal("plugin"), pluginID: Schema.String }),
])
export type SystemOrigin = typeof SystemOrigin.Type

export const SystemPart = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  origin: SystemOrigin,
})
export type SystemPart = typeof SystemPart.Type

export const ModelTextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
export const ModelReasoningPart = Schema.Struct({ type: Schema.Literal("reasoning"), text: Schema.String })
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
  output: Schema.String,
  isError: Schema.Boolean,
})

export const ModelMessage = Schema.Union([
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.Array(ModelTextPart) }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.Array(Schema.Union([ModelTextPart, ModelReasoningPart, ModelToolCallPart])),
  }),
  Schema.Struct({ role: Schema.Literal("tool"), content: Schema.Array(ModelToolResultPart) }),
])
export type ModelMessage = typeof ModelMessage.Type

/** A tool as the model sees it: name, description and a JSON Schema for its input. */
export const ModelTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: Schema.Record(Schema.String, Schema.Unknown),
})
export type ModelTool = typeof ModelTool.Type

export const ModelRef = Schema.Struct({ providerID: Schema.String, modelID: Schema.String })
export type ModelRef = typeof ModelRef.Type

export interface ModelRequest {
  readonly model: ModelRef
  readonly system: ReadonlyArray<SystemPart>
  readonly messages: ReadonlyArray<ModelMessage>
  readonly tools: ReadonlyArray<ModelTool>
}
