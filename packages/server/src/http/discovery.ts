import { Config, listAgents, Providers, redactConfig } from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"

/** `provider.list`: the usable providers, from the core's registry (keys never leave it). */
export const ProviderHandlers = HttpApiBuilder.group(
  Api,
  "provider",
  Effect.fn(function* (handlers) {
    const providers = yield* Providers
    const model = `${providers.defaultModel.providerID}/${providers.defaultModel.modelID}`
    return handlers.handle("list", () => Effect.sync(() => ({ default: model, items: providers.list() })))
  }),
)

/** `agent.list`: the default agent and the configured ones. */
export const AgentHandlers = HttpApiBuilder.group(
  Api,
  "agent",
  Effect.fn(function* (handlers) {
    const config = yield* Config
    return handlers.handle("list", () => Effect.sync(() => ({ items: listAgents(config.data) })))
  }),
)

/** `config.get`: the effective config, redacted, with the default model spelled out. */
export const ConfigHandlers = HttpApiBuilder.group(
  Api,
  "config",
  Effect.fn(function* (handlers) {
    const config = yield* Config
    const providers = yield* Providers
    const model = `${providers.defaultModel.providerID}/${providers.defaultModel.modelID}`
    return handlers.handle("get", () => Effect.sync(() => ({ ...redactConfig(config.data), model })))
  }),
)
