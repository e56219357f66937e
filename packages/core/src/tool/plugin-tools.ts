import { ToolRegistrationError } from "@opencode-ai/plugin"
import { Context, Effect, Layer } from "effect"
import type { ToolSource } from "./registry.ts"
import type { Tool } from "./tool.ts"

export interface PluginToolsShape extends ToolSource {
  /** Names plugins may not take (the built-in tools); the runner reserves them before plugins load. */
  reserve(names: Iterable<string>): void
  /** Adds a plugin's tool; answers its disposer. A bad or taken id is refused and nothing is added. */
  register(pluginID: string, tool: Tool): Effect.Effect<() => void, ToolRegistrationError>
}

/**
 * The tools plugins registered, offered to the model after the built-in ones and before MCP servers'.
 * A tool source like MCP: the runner lists it per request, so a tool registered or disposed later shows
 * up (or goes) with the next request.
 */
export class PluginTools extends Context.Service<PluginTools, PluginToolsShape>()(
  "@opencode-ai/core/plugin/PluginTools",
) {
  static readonly layer = Layer.sync(PluginTools, () => {
    const reserved = new Set<string>()
    const byName = new Map<string, { readonly pluginID: string; readonly tool: Tool }>()
    let list: ReadonlyArray<Tool> = []
    const refresh = () => (list = [...byName.values()].map((entry) => entry.tool))
    return PluginTools.of({
      reserve: (names) => {
        for (const name of names) reserved.add(name)
      },
      register: (pluginID, tool) =>
        Effect.suspend(() => {
          const refuse = (message: string) =>
            Effect.fail(new ToolRegistrationError({ pluginID, tool: tool.name, message }))
          if (reserved.has(tool.name)) return refuse(`tool "${tool.name}" is a built-in tool`)
          const taken = byName.get(tool.name)
          if (taken) return refuse(`tool "${tool.name}" is already registered by plugin "${taken.pluginID}"`)
          const entry = { pluginID, tool }
          byName.set(tool.name, entry)
          refresh()
          return Effect.succeed(() => {
            if (byName.get(tool.name) !== entry) return
            byName.delete(tool.name)
            refresh()
          })
        }),
      tools: () => Effect.sync(() => list),
      find: (name) => Effect.sync(() => byName.get(name)?.tool),
    })
  })
}
