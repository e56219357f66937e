import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { makeSdkClient } from "./ai-sdk.ts"
import { DEFAULT_IDLE_TIMEOUT, makeIdleFetch, type FetchLike } from "./fetch.ts"
import type { ProviderClient } from "./provider.ts"
import { endpointOf } from "./endpoint.ts"

/**
 * The model of any server that speaks the OpenAI chat-completions streaming API (vLLM, llama.cpp,
 * Ollama, LM Studio, OpenRouter, ...), through the AI SDK's openai-compatible provider.
 */
export interface ProtocolOptions {
  /** Identifies the backend (the config's provider id). */
  readonly providerID: string
  readonly modelID: string
  /** Base URL up to and including the version segment, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseURL: string
  readonly apiKey?: string
  /** Extra headers sent with every request. */
  readonly headers?: Record<string, string>
  readonly fetch: FetchLike
}

// Annotated so the packed declarations name the type through this package's own dependency.
export const openAICompatibleModel = (
  options: ProtocolOptions,
): ReturnType<ReturnType<typeof createOpenAICompatible>["chatModel"]> =>
  createOpenAICompatible({
    name: options.providerID,
    baseURL: options.baseURL,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
    fetch: options.fetch as typeof fetch,
    // Ask for the trailing usage chunk (`stream_options.include_usage`); OpenAI omits usage otherwise.
    includeUsage: true,
  }).chatModel(options.modelID)

/** A ready client for one model of an OpenAI-compatible server (default idle timeout, no host retries). */
export const makeOpenAICompatible = (
  options: Omit<ProtocolOptions, "fetch"> & { readonly fetch?: FetchLike; readonly timeout?: number },
): ProviderClient =>
  makeSdkClient({
    providerID: options.providerID,
    endpoint: endpointOf(options.baseURL),
    model: openAICompatibleModel({
      ...options,
      fetch: options.fetch ?? makeIdleFetch({ timeout: options.timeout ?? DEFAULT_IDLE_TIMEOUT }),
    }),
  })
