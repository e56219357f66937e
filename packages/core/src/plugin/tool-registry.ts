import type { EffectToolRegistry, PromiseToolRegistry } from "@opencode-ai/plugin"
import { Effect, Exit } from "effect"
import type { Mutation } from "../maintenance/mutation.ts"
import { toPlainError } from "./context.ts"
import type { PluginToolsShape } from "../tool/plugin-tools.ts"
import { makePluginTool } from "./tools.ts"

/** `ctx.tool` of an Effect plugin: each tool is registered for the lifetime of the surrounding scope. */
export const effectToolRegistry = (
  pluginID: string,
  tools: PluginToolsShape,
  mutation: Mutation["Service"],
): EffectToolRegistry => ({
  register: (definition) =>
    Effect.gen(function* () {
      const tool = yield* makePluginTool(pluginID, definition, "effect", { mutation })
      const dispose = yield* tools.register(pluginID, tool)
      yield* Effect.addFinalizer(() => Effect.sync(dispose))
    }),
})

/**
 * `ctx.tool` of a Promise plugin: `register` answers the disposer (also run at unload) or throws the plain
 * `{ _tag: "Plugin.ToolRegistrationError", pluginID, tool, message }`.
 */
export const promiseToolRegistry = (
  pluginID: string,
  tools: PluginToolsShape,
  mutation: Mutation["Service"],
  track: (dispose: () => void) => () => void,
): PromiseToolRegistry => ({
  register: (definition) => {
    const exit = Effect.runSyncExit(
      Effect.flatMap(makePluginTool(pluginID, definition, "promise", { mutation }), (tool) =>
        tools.register(pluginID, tool),
      ),
    )
    if (Exit.isFailure(exit)) throw toPlainError(exit.cause)
    return track(exit.value)
  },
})
