import { Schema, type Stream } from "effect"
import type { ModelRequest } from "../session/model-request.ts"

/** Token counts reported by a provider for one request. */
export const Usage = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  reasoning: Schema.optional(Schema.Number),
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

/** A provider request failed: network, HTTP status, protocol or decoding. Recorded on the assistant message. */
export class ProviderError extends Schema.TaggedError<ProviderError>()("Provider.Error", {
  providerID: Schema.String,
  message: Schema.String,
  status: Schema.optional(Schema.Number),
}) {}

/**
 * One configured model backend. `stream` is lazy: nothing is sent until the stream is run, and
 * interrupting the stream aborts the underlying request.
 */
export interface ProviderClient {
  readonly id: string
  stream(request: ModelRequest): Stream.Stream<ProviderEvent, ProviderError>
}
