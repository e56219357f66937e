import { Schema, type Stream } from "effect"
import type { ModelRequest } from "../domain/model-request.ts"

/** Token counts reported by a provider for one request. */
export const Usage = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  reasoning: Schema.optional(Schema.Number),
  /** Input tokens read from, and written to, the provider's prompt cache. */
  cacheRead: Schema.optional(Schema.Number),
  cacheWrite: Schema.optional(Schema.Number),
})
export type Usage = typeof Usage.Type

export const FinishReason = Schema.Literals(["stop", "tool-calls", "length", "content-filter", "error", "other"])
export type FinishReason = typeof FinishReason.Type

/** What a provider streams back for one request, already normalised across providers. */
export type ProviderEvent =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  | { readonly type: "tool-call"; readonly callID: string; readonly tool: string; readonly input: unknown }
  | { readonly type: "finish"; readonly reason: FinishReason; readonly usage?: Usage }

/**
 * A provider request failed: network, HTTP status, protocol, decoding, an idle stream, or a provider that
 * cannot be used (unknown, missing key). Recorded on the assistant message; `message` names the provider
 * and, when a request was made, the endpoint's host:port.
 */
export class ProviderError extends Schema.TaggedError<ProviderError>()("Provider.Error", {
  providerID: Schema.String,
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  /** The endpoint's `host:port`, when a request was attempted. */
  endpoint: Schema.optional(Schema.String),
  /** A transient failure (429, 5xx, connection) that may succeed when retried. */
  retryable: Schema.optional(Schema.Boolean),
  /** The delay the server asked for (`retry-after`), in ms. */
  retryAfter: Schema.optional(Schema.Number),
  /** The request did not fit the model's context window. */
  overflow: Schema.optional(Schema.Boolean),
}) {}

/**
 * One configured model backend. `stream` is lazy: nothing is sent until the stream is run, and
 * interrupting the stream aborts the underlying request.
 */
export interface ProviderClient {
  readonly id: string
  /** The endpoint's `host:port` (empty for the embedded offline provider). */
  readonly endpoint?: string
  stream(request: ModelRequest): Stream.Stream<ProviderEvent, ProviderError>
}
