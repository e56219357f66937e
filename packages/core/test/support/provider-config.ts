import type { ConfigData } from "../../src/config/config.ts"
import type { OpenAIServer } from "./openai-server.ts"

/**
 * Config pointing the default model at a local OpenAI-compatible test server. Title generation is off
 * (`extra` may turn it on): its background request would take replies the test scripted for its turns.
 */
export const localModel = (server: OpenAIServer, extra: ConfigData = {}): ConfigData => ({
  model: "local/test-model",
  title: { auto: false },
  provider: { local: { type: "openai-compatible", baseURL: server.url, apiKey: "test", models: { "test-model": {} } } },
  ...extra,
})

/** Everything the model was sent in one request, as one string (for "contains / lacks" assertions). */
export const requestText = (request: unknown) => JSON.stringify(request)
