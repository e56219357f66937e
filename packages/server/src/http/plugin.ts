import { PluginHost } from "@opencode-ai/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"

/** `plugin.list`: what the plugin host loaded, and what failed with which error. */
export const PluginHandlers = HttpApiBuilder.group(
  Api,
  "plugin",
  Effect.fn(function* (handlers) {
    const plugins = yield* PluginHost
    return handlers.handle("list", () => Effect.sync(() => plugins.list()))
  }),
)
