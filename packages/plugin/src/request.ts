import { ModelRef } from "@opencode-ai/schema"
import { Schema } from "effect"
import { ModelMessage, SystemPart } from "./model-message.ts"

/**
 * Payloads of the hooks around one model request (`model.request`, `title`, `retry`), declared once as
 * Schemas like the other hook payloads.
 */

/**
 * Why the host makes a model request: `primary` (a step of a turn), `compaction` (a summary of the older
 * transcript) or `title` (a session's generated title).
 */
export const RequestKind = Schema.Literals(["primary", "compaction", "title"])
export type RequestKind = typeof RequestKind.Type

/**
 * `model.request`: the last hook before a request goes to the provider, for every kind of request. Edit
 * `headers` (sent with this request's HTTP call, over the provider's configured headers) and `options`.
 * In `options`, `temperature`, `topP`, `topK`, `maxOutputTokens`, `seed`, `presencePenalty`,
 * `frequencyPenalty` and `stopSequences` are generation settings; every other key is a provider option,
 * handed to the provider under its own name (an OpenAI-compatible server receives them in the request
 * body; Anthropic and OpenAI read their documented options). Copies: edits shape this request only.
 */
export const ModelRequestEvent = Schema.Struct({
  sessionID: Schema.String,
  agentID: Schema.String,
  model: ModelRef,
  kind: RequestKind,
  headers: Schema.mutableKey(Schema.Record(Schema.String, Schema.String)),
  options: Schema.mutableKey(Schema.Record(Schema.String, Schema.Unknown)),
})
// Headers and options are edited in place; the Schema's record type is read-only, the payload is not.
export type ModelRequestEvent = Omit<typeof ModelRequestEvent.Type, "headers" | "options"> & {
  headers: Record<string, string>
  options: Record<string, unknown>
}

/**
 * `title`: before the host asks the model for a session's title (once, after the session's first turn,
 * while its title is still the default). `system` and `messages` are copies of the title request; edit
 * them to shape it. Set `title` to use that title and skip the request; set `veto` to keep the default
 * title (no request, no rename).
 */
export const TitleEvent = Schema.Struct({
  sessionID: Schema.String,
  model: ModelRef,
  system: Schema.mutableKey(Schema.mutable(Schema.Array(SystemPart))),
  messages: Schema.mutableKey(Schema.mutable(Schema.Array(ModelMessage))),
  title: Schema.optionalKey(Schema.mutableKey(Schema.String)),
  veto: Schema.optionalKey(Schema.mutableKey(Schema.Boolean)),
})
export type TitleEvent = typeof TitleEvent.Type

/** Whether to retry a failed model request, and after how many milliseconds. */
export const RetryDecision = Schema.Union([
  Schema.Struct({ retry: Schema.Literal(false) }),
  Schema.Struct({ retry: Schema.Literal(true), delay: Schema.Number }),
])
export type RetryDecision = typeof RetryDecision.Type

/**
 * `retry`: a model request failed before anything streamed. `decision` is the host's (retry transient
 * failures, 429, 5xx, connection, with backoff that honours `retry-after`, up to `provider.<id>.retries`);
 * replace it to stop retrying or to change the delay. Attempts stay capped by `provider.<id>.retries`,
 * and a delay is capped at 10 minutes.
 */
export const RetryEvent = Schema.Struct({
  sessionID: Schema.String,
  model: ModelRef,
  kind: RequestKind,
  /** 1 for the first retry. */
  attempt: Schema.Number,
  error: Schema.Struct({
    message: Schema.String,
    status: Schema.optional(Schema.Number),
    retryable: Schema.Boolean,
  }),
  decision: Schema.mutableKey(RetryDecision),
})
export type RetryEvent = typeof RetryEvent.Type
