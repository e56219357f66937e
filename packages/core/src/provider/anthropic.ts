import { createAnthropic } from "@ai-sdk/anthropic"
import type { ProtocolOptions } from "./openai-compatible.ts"

/** A model behind the Anthropic Messages API (`POST /v1/messages`, SSE), through `@ai-sdk/anthropic`. */
// Annotated so the packed declarations name the type through this package's own dependency.
export const anthropicModel = (options: ProtocolOptions): ReturnType<ReturnType<typeof createAnthropic>["messages"]> =>
  createAnthropic({
    baseURL: options.baseURL,
    // Always explicit: the SDK would otherwise read the environment itself, behind the config's back.
    apiKey: options.apiKey ?? "",
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
    fetch: options.fetch as typeof fetch,
  }).messages(options.modelID)
