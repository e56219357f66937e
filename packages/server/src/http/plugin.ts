import { Config, PluginHost, Providers, redactConfig } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { modelName } from "@opencode-ai/schema"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

/** `v2.plugin.list`: what the plugin host loaded, and what failed with which error. */
export const PluginHandlers = HttpApiBuilder.group(
  Api,
  "v2.plugin",
  Effect.fn(function* (handlers) {
    const plugins = yield* PluginHost
    return handlers.handle("list", () => Effect.sync(() => ({ data: plugins.list() })))
  }),
)

/** `v2.config.get`: the effective config, redacted, with the default model spelled out. */
export const ConfigHandlers = HttpApiBuilder.group(
  Api,
  "v2.config",
  Effect.fn(function* (handlers) {
    const config = yield* Config
    const providers = yield* Providers
    const model = modelName(providers.defaultModel)
    return handlers.handle("get", () => Effect.sync(() => ({ data: { ...redactConfig(config.data), model } })))
  }),
)
