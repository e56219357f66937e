import {
  APICallError,
  jsonSchema,
  isStepCount,
  streamText,
  type JSONSchema7,
  type LanguageModel,
  type ModelMessage as SdkMessage,
  type TextStreamPart,
  type ToolSet,
} from "ai"
import { type Clock, Effect, Stream } from "effect"
import type { ModelMessage, ModelRequest, ModelTool, SystemPart } from "../domain/model-request.ts"
import { IdleTimeoutError } from "./fetch.ts"
import { ProviderError, type FinishReason, type ProviderClient, type ProviderEvent, type Usage } from "./provider.ts"

/**
 * A `ProviderClient` over an AI SDK language model: one `stream` call is exactly one model step, and
 * failures become `ProviderError`s naming the provider and the endpoint. (docs/architecture.md, "One AI
 * SDK stream call is one model step")
 */

// The SDK prints its warnings (e.g. "reasoning part skipped") with console.warn; the host's stderr is
// for its own log lines, and what is dropped from a request is decided (and documented) here.
;(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false

export interface SdkClientOptions {
  /** Identifies this backend; used as the client's `id` and on every `ProviderError`. */
  readonly providerID: string
  /** The endpoint's `host:port`, named in errors. */
  readonly endpoint: string
  readonly model: LanguageModel
  /** The answer's token budget (`limit.output`), when known. */
  readonly maxOutputTokens?: number
  /** The name the SDK provider reads its options under (`providerOptions[name]`); default `providerID`. */
  readonly optionsName?: string
}

/** `model.request` option keys that are the SDK's generation settings; every other key is a provider option. */
const GENERATION = new Set([
  "temperature",
  "topP",
  "topK",
  "maxOutputTokens",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
  "stopSequences",
])

const splitOptions = (options: Readonly<Record<string, unknown>> | undefined, name: string) => {
  const generation: Record<string, unknown> = {}
  const provider: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options ?? {})) {
    if (value === undefined) continue
    ;(GENERATION.has(key) ? generation : provider)[key] = value
  }
  return {
    generation,
    ...(Object.keys(provider).length > 0 ? { providerOptions: { [name]: provider } as never } : {}),
  }
}

export const makeSdkClient = (options: SdkClientOptions): ProviderClient => {
  const { providerID, endpoint, model } = options
  const failWith = (clock: Clock.Clock) => (cause: unknown) =>
    cause instanceof ProviderError
      ? cause
      : toProviderError(providerID, endpoint, cause, clock.currentTimeMillisUnsafe())

  const stream = (request: ModelRequest): Stream.Stream<ProviderEvent, ProviderError> =>
    Stream.unwrap(
      Effect.gen(function* () {
        const fail = failWith(yield* Effect.clockWith(Effect.succeed))
        // Aborted when the stream's scope closes: on interruption this cancels the in-flight HTTP
        // request; after normal completion or failure it is a no-op.
        const controller = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort()),
        )
        const instructions = toInstructions(request.system)
        const { generation, ...providerOptions } = splitOptions(request.options, options.optionsName ?? providerID)
        const result = yield* Effect.try({
          try: () =>
            streamText({
              model,
              ...(instructions !== undefined ? { instructions } : {}),
              messages: request.messages.map(toSdkMessage),
              tools: toToolSet(request.tools),
              ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
              // A plugin's `model.request` settings win over the host's defaults for this request.
              ...generation,
              ...providerOptions,
              ...(request.headers && Object.keys(request.headers).length > 0
                ? { headers: { ...request.headers } }
                : {}),
              // One model step per request; the host runs the tools and loops.
              stopWhen: isStepCount(1),
              // Retrying is the host's decision, not the transport's.
              maxRetries: 0,
              abortSignal: controller.signal,
              // Errors are surfaced as `ProviderError`s below; the SDK's default is to log them.
              onError: () => {},
            }),
          catch: fail,
        })
        return Stream.fromAsyncIterable(toEvents(result.stream, fail), fail)
      }),
    )

  return { id: providerID, endpoint, stream }
}

// ---------------------------------------------------------------------------------------------
// ModelRequest -> AI SDK

/**
 * All system parts become ONE system message, joined by blank lines, in order. Several OpenAI-
 * compatible servers (chat templates of local models in particular) reject or silently drop a
 * second system message, so a single one is the portable choice; the blank line keeps the parts
 * visually separate for the model.
 */
const toInstructions = (system: ReadonlyArray<SystemPart>): string | undefined => {
  const text = system
    .map((part) => part.text)
    .filter((text) => text.length > 0)
    .join("\n\n")
  return text.length > 0 ? text : undefined
}

const toSdkMessage = (message: ModelMessage): SdkMessage => {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content.map((part) => ({ type: "text", text: part.text })) }
    case "assistant":
      return {
        role: "assistant",
        content: message.content.map((part) => {
          switch (part.type) {
            case "text":
              return { type: "text", text: part.text }
            case "reasoning":
              // Sent back as `reasoning_content` on the assistant message by the openai-compatible provider.
              return { type: "reasoning", text: part.text }
            case "tool-call":
              return { type: "tool-call", toolCallId: part.callID, toolName: part.tool, input: part.input }
          }
        }),
      }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part) => ({
          type: "tool-result",
          toolCallId: part.callID,
          toolName: part.tool,
          output: part.isError ? { type: "error-text", value: part.output } : { type: "text", value: part.output },
        })),
      }
  }
}

/** Declared tools without `execute`: the SDK only reports the calls, the host runs them. */
const toToolSet = (tools: ReadonlyArray<ModelTool>): ToolSet => {
  const set: ToolSet = {}
  for (const tool of tools) {
    set[tool.name] = {
      description: tool.description,
      inputSchema: jsonSchema(tool.parameters as JSONSchema7),
    }
  }
  return set
}

// ---------------------------------------------------------------------------------------------
// AI SDK stream -> ProviderEvent

/**
 * Maps the SDK's stream parts to `ProviderEvent`s. An `error` part ends the iteration by throwing
 * a `ProviderError`, which becomes the stream's failure. Parts without a counterpart (start/end
 * markers, tool-input deltas, sources, ...) are dropped.
 */
async function* toEvents(
  parts: AsyncIterable<TextStreamPart<ToolSet>>,
  fail: (cause: unknown) => ProviderError,
): AsyncGenerator<ProviderEvent> {
  for await (const part of parts) {
    switch (part.type) {
      case "text-delta":
        if (part.text.length > 0) yield { type: "text-delta", text: part.text }
        break
      case "reasoning-delta":
        if (part.text.length > 0) yield { type: "reasoning-delta", text: part.text }
        break
      case "tool-call":
        // Also forwarded when the SDK marks the call `invalid` (unknown tool, unparsable JSON): the
        // input is then the parsed value or the raw argument text, and the host, which validates
        // inputs before running tools anyway, answers with an error result the model can react to.
        yield { type: "tool-call", callID: part.toolCallId, tool: part.toolName, input: part.input }
        break
      case "finish":
        yield { type: "finish", reason: toFinishReason(part.finishReason), usage: toUsage(part.totalUsage) }
        break
      case "error":
        throw fail(part.error)
      default:
        break
    }
  }
}

const toFinishReason = (reason: string): FinishReason => {
  switch (reason) {
    case "stop":
    case "tool-calls":
    case "length":
    case "content-filter":
    case "error":
    case "other":
      return reason
    default:
      return "other"
  }
}

const toUsage = (usage: {
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
  readonly outputTokenDetails?: { readonly reasoningTokens: number | undefined }
}): Usage => {
  const reasoning = usage.outputTokenDetails?.reasoningTokens
  return {
    input: usage.inputTokens ?? 0,
    output: usage.outputTokens ?? 0,
    ...(reasoning !== undefined && reasoning > 0 ? { reasoning } : {}),
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

/** Message fragments by which providers report a request that does not fit the context window. */
const OVERFLOW =
  /context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long|too many (input )?tokens|input is too long|exceeds? the (model's )?(context|maximum)/i

/** `retry-after` (seconds or an HTTP date) or `retry-after-ms`, in ms; undefined when absent or unreadable. */
/** `now` is the time an HTTP date is measured from (Effect's `Clock`). */
export const retryAfterMs = (headers: Record<string, string> | undefined, now: number): number | undefined => {
  if (!headers) return undefined
  const get = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
  const ms = Number(get("retry-after-ms"))
  if (get("retry-after-ms") !== undefined && Number.isFinite(ms) && ms >= 0) return ms
  const value = get("retry-after")
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * A human-readable `ProviderError` (no stack, no request body) that names the provider and the endpoint,
 * classified for the host: retryable (429, 5xx, connection), the delay the server asked for, and whether
 * the request overflowed the context window.
 */
export const toProviderError = (providerID: string, endpoint: string, cause: unknown, now: number): ProviderError => {
  const where = `provider "${providerID}" (${endpoint})`
  const error = unwrap(cause)
  if (error instanceof IdleTimeoutError) {
    return new ProviderError({ providerID, endpoint, message: `${where}: ${error.message}` })
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    const text = error.message.length > 0 ? error.message : "request failed"
    const body = error.responseBody ?? ""
    const retryable = status === undefined ? error.isRetryable : status === 429 || status >= 500 || error.isRetryable
    const after = retryAfterMs(error.responseHeaders, now)
    const overflow =
      status !== undefined && status >= 400 && status < 500 && (OVERFLOW.test(text) || OVERFLOW.test(body))
    return new ProviderError({
      providerID,
      endpoint,
      message: clip(`${where}: ${status !== undefined ? `HTTP ${status}: ${text}` : text}`),
      ...(status !== undefined ? { status } : {}),
      ...(retryable ? { retryable } : {}),
      ...(after !== undefined ? { retryAfter: after } : {}),
      ...(overflow ? { overflow } : {}),
    })
  }
  const text =
    error instanceof Error
      ? error.message || error.name
      : typeof error === "string"
        ? error
        : `request failed: ${String(error)}`
  // An error the stream itself carried (e.g. an `overloaded_error` event) may say it is transient.
  const flagged =
    typeof error === "object" && error !== null && (error as { isRetryable?: unknown }).isRetryable === true
  return new ProviderError({
    providerID,
    endpoint,
    message: clip(`${where}: ${text}`),
    ...(flagged ? { retryable: true } : {}),
    ...(OVERFLOW.test(text) ? { overflow: true } : {}),
  })
}

/** Some SDK messages quote the offending response text; keep them readable. */
const clip = (message: string, max = 2000): string => (message.length > max ? `${message.slice(0, max)}…` : message)

/**
 * The SDK may wrap the real failure (retry wrapper, no-output wrapper, "failed to process successful
 * response"): an idle timeout anywhere in the chain wins, else the innermost API error, else the error.
 */
const unwrap = (error: unknown): unknown => {
  let found: unknown
  let current = error
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof IdleTimeoutError) return current
    if (APICallError.isInstance(current)) found ??= current
    const inner: unknown = (current as { lastError?: unknown }).lastError ?? current.cause
    if (inner === undefined) break
    current = inner
  }
  return found ?? error
}
