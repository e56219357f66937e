import { createOpenAI } from "@ai-sdk/openai"
import type { ProtocolOptions } from "./openai-compatible.ts"

/** A model behind OpenAI's Responses API (`POST /v1/responses`, SSE), through `@ai-sdk/openai`. */
// Annotated so the packed declarations name the type through this package's own dependency.
export const openAIModel = (options: ProtocolOptions): ReturnType<ReturnType<typeof createOpenAI>["responses"]> =>
  createOpenAI({
    baseURL: options.baseURL,
    // Always explicit: the SDK would otherwise read the environment itself, behind the config's back.
    apiKey: options.apiKey ?? "",
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
    fetch: options.fetch as typeof fetch,
  }).responses(options.modelID)
