import type { ConfigData } from "../../src/config/config.ts"
import type { OpenAIServer } from "./openai-server.ts"

/** Config pointing the default model at a local OpenAI-compatible test server. */
export const localModel = (server: OpenAIServer, extra: ConfigData = {}): ConfigData => ({
  model: "local/test-model",
  provider: { local: { type: "openai-compatible", baseURL: server.url, apiKey: "test", models: { "test-model": {} } } },
  ...extra,
})

/** Everything the model was sent in one request, as one string (for "contains / lacks" assertions). */
export const requestText = (request: unknown) => JSON.stringify(request)
