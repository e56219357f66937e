import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import {
  APICallError,
  jsonSchema,
  isStepCount,
  streamText,
  type JSONSchema7,
  type ModelMessage as SdkMessage,
  type TextStreamPart,
  type ToolSet,
} from "ai"
import { Effect, Stream } from "effect"
import type { ModelMessage, ModelRequest, ModelTool, SystemPart } from "../session/model-request.ts"
import { ProviderError, type FinishReason, type ProviderClient, type ProviderEvent, type Usage } from "./provider.ts"

/**
 * A provider for any server that speaks the OpenAI chat-completions streaming API (OpenAI itself,
 * vLLM, llama.cpp, Ollama, LM Studio, OpenRouter, ...). The wire protocol is handled by the AI SDK;
 * this module only translates `ModelRequest` in and AI SDK stream parts out.
 *
 * One `stream` call is exactly one model step: tools are declared without `execute`, so the SDK
 * never runs them or loops — the host executes tool calls and sends the next request itself.
 */

export interface OpenAICompatibleOptions {
  /** Identifies this backend; used as the client's `id` and on every `ProviderError`. */
  readonly providerID: string
  /** The model name sent in the request body. */
  readonly modelID: string
  /** Base URL up to and including the version segment, e.g. `https://api.openai.com/v1`. */
  readonly baseURL: string
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  readonly apiKey?: string
  /** Extra headers sent with every request. */
  readonly headers?: Record<string, string>
}

export const makeOpenAICompatible = (options: OpenAICompatibleOptions): ProviderClient => {
  const { providerID } = options
  const provider = createOpenAICompatible({
    name: providerID,
    baseURL: options.baseURL,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
    // Ask for the trailing usage chunk (`stream_options.include_usage`); OpenAI omits usage otherwise.
    includeUsage: true,
  })
  const model = provider.chatModel(options.modelID)

  const stream = (request: ModelRequest): Stream.Stream<ProviderEvent, ProviderError> =>
    Stream.unwrap(
      Effect.gen(function* () {
        // Aborted when the stream's scope closes: on interruption this cancels the in-flight HTTP
        // request; after normal completion or failure it is a no-op.
        const controller = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort()),
        )
        const instructions = toInstructions(request.system)
        const result = yield* Effect.try({
          try: () =>
            streamText({
              model,
              ...(instructions !== undefined ? { instructions } : {}),
              messages: request.messages.map(toSdkMessage),
              tools: toToolSet(request.tools),
              // One model step per request; the host runs the tools and loops.
              stopWhen: isStepCount(1),
              // Retrying is the host's decision, not the transport's.
              maxRetries: 0,
              abortSignal: controller.signal,
              // Errors are surfaced as `ProviderError`s below; the SDK's default is to log them.
              onError: () => {},
            }),
          catch: (cause) => toProviderError(providerID, cause),
        })
        return Stream.fromAsyncIterable(toEvents(providerID, result.stream), (cause) =>
          cause instanceof ProviderError ? cause : toProviderError(providerID, cause),
        )
      }),
    )

  return { id: providerID, stream }
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
async function* toEvents(providerID: string, parts: AsyncIterable<TextStreamPart<ToolSet>>): AsyncGenerator<ProviderEvent> {
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
        throw toProviderError(providerID, part.error)
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

/** A human-readable `ProviderError` (no stack, no request body) with the HTTP status when known. */
export const toProviderError = (providerID: string, cause: unknown): ProviderError => {
  const error = unwrap(cause)
  if (APICallError.isInstance(error)) {
    const status = error.statusCode
    const message = error.message.length > 0 ? error.message : "request failed"
    return new ProviderError({
      providerID,
      message: clip(status !== undefined ? `HTTP ${status}: ${message}` : message),
      ...(status !== undefined ? { status } : {}),
    })
  }
  if (error instanceof Error) {
    return new ProviderError({ providerID, message: clip(error.message.length > 0 ? error.message : error.name) })
  }
  return new ProviderError({ providerID, message: clip(typeof error === "string" ? error : `request failed: ${String(error)}`) })
}

/** Some SDK messages quote the offending response text; keep them readable. */
const clip = (message: string, max = 2000): string => (message.length > max ? `${message.slice(0, max)}…` : message)

/** The SDK may wrap the real failure (retry wrapper, no-output wrapper); prefer the innermost API error. */
const unwrap = (error: unknown): unknown => {
  let current = error
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (APICallError.isInstance(current)) return current
    const inner = (current as { lastError?: unknown }).lastError ?? current.cause
    if (inner === undefined) break
    current = inner
  }
  return APICallError.isInstance(current) ? current : error
}
