import type { ModelMessage, ModelRef, ModelTool, RequestKind, SystemPart } from "@opencode-ai/plugin"

/**
 * The provider-neutral shape of one primary model request. The runner builds it from the stored
 * transcript, the `session.context` hook may reshape a copy of it, and a provider translates it to its
 * own wire format. Nothing here is ever written back to storage. Its parts are declared once in
 * `@opencode-ai/plugin` (they are the `session.context` payload) and re-exported here.
 */
export {
  ModelMessage,
  ModelReasoningPart,
  ModelRef,
  ModelTextPart,
  ModelTool,
  ModelToolCallPart,
  ModelToolResultPart,
  SystemOrigin,
  SystemPart,
} from "@opencode-ai/plugin"

export interface ModelRequest {
  readonly model: ModelRef
  readonly system: ReadonlyArray<SystemPart>
  readonly messages: ReadonlyArray<ModelMessage>
  readonly tools: ReadonlyArray<ModelTool>
  /** Why the request is made; `primary` when absent. */
  readonly kind?: RequestKind
  /** Headers for this request's HTTP call, over the provider's configured ones (`model.request` hook). */
  readonly headers?: Readonly<Record<string, string>>
  /** Generation settings and provider options for this request (`model.request` hook). */
  readonly options?: Readonly<Record<string, unknown>>
}
