import { Commands, Config, PluginHost, Providers, redactConfig, Skills } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { type ConfigDiagnostic, modelName } from "@opencode-ai/schema"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { requestLocation, ServerDirectory } from "./location.ts"

/** `v2.plugin.list`: what the plugin host loaded, and what failed with which error. */
export const PluginHandlers = HttpApiBuilder.group(
  Api,
  "v2.plugin",
  Effect.fn(function* (handlers) {
    const plugins = yield* PluginHost
    return handlers.handle("list", () => Effect.sync(() => ({ data: plugins.list() })))
  }),
)

/**
 * `v2.config.get`: the effective config, redacted, with the default model spelled out, and the diagnostics:
 * the config file's warnings, then the command and skill files of the location that were left out.
 */
export const ConfigHandlers = HttpApiBuilder.group(
  Api,
  "v2.config",
  Effect.fn(function* (handlers) {
    const config = yield* Config
    const providers = yield* Providers
    const commands = yield* Commands
    const skills = yield* Skills
    const home = yield* ServerDirectory
    const model = modelName(providers.defaultModel)
    const prefix = config.path !== undefined ? `${config.path}: ` : ""
    const configDiagnostics: ReadonlyArray<ConfigDiagnostic> = (config.warnings ?? []).map((warning) => ({
      kind: "config",
      path: config.path ?? "",
      message: prefix !== "" && warning.startsWith(prefix) ? warning.slice(prefix.length) : warning,
    }))
    return handlers.handle("get", ({ query, request }) =>
      Effect.gen(function* () {
        const location = yield* requestLocation(query, request, home)
        const listed = yield* Effect.all([commands.list(location.directory), skills.list(location.directory)])
        return {
          data: { ...redactConfig(config.data), model },
          diagnostics: [...configDiagnostics, ...listed.flatMap((listing) => listing.diagnostics)],
        }
      }),
    )
  }),
)
