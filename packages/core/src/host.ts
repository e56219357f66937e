import { Effect, Layer } from "effect"
import { Config, type ConfigShape } from "./config/config.ts"
import { Permissions } from "./permission/permission.ts"
import { Questions } from "./question/question.ts"
import { Todos } from "./todo/todo.ts"
import { Hooks } from "./plugin/hooks.ts"
import { type InlinePlugin, PluginHost } from "./plugin/host.ts"
import { Providers } from "./provider/registry.ts"
import { Erase } from "./session/erase.ts"
import { Execution } from "./session/execution.ts"
import { Mutation } from "./session/mutation.ts"
import { Prune } from "./session/prune.ts"
import { Restart } from "./session/restart.ts"
import { StatusLayer } from "./session/status.ts"
import { Runner } from "./session/runner/llm.ts"
import { StoreLayer } from "./storage/layer.ts"

export interface HostOptions {
  /** SQLite file path, or `:memory:`. */
  readonly database: string
  readonly config: ConfigShape
  /** Plugins given in code, loaded after those named in config. */
  readonly plugins?: ReadonlyArray<InlinePlugin>
  /** Resume claimed sessions once plugins are loaded. Default: `config.server.autoResume ?? true`. */
  readonly autoResume?: boolean
}

/**
 * The whole host, composed: storage and bus, session read model, hooks, providers, runner, execution,
 * mutations, prune and erase, plugins and restart resume. Plugins are activated before any claimed session resumes, so
 * the first resumed request already runs their `session.preflight` hooks.
 */
export const HostLayer = (options: HostOptions) => {
  const config = Config.layer(options.config)
  const store = StoreLayer({ path: options.database, persist: options.config.data.events?.persist !== false })
  const base = Layer.mergeAll(Hooks.layer, Providers.layer).pipe(Layer.provideMerge(config))
  const runner = Runner.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Permissions.layer, Questions.layer, Todos.layer)),
    Layer.provideMerge(Layer.merge(store, base)),
  )
  const execution = Layer.mergeAll(Execution.layer, Mutation.layer, Prune.layer, Erase.layer, StatusLayer).pipe(
    Layer.provideMerge(runner),
  )
  const plugins = PluginHost.layer({ inline: options.plugins ?? [] }).pipe(Layer.provideMerge(execution))
  const autoResume = options.autoResume ?? options.config.data.server?.autoResume ?? true
  const resume = Layer.effectDiscard(
    Effect.gen(function* () {
      if (!autoResume) return
      const restart = yield* Restart
      const { resumed, exhausted } = yield* restart.resumeClaimed()
      if (resumed.length + exhausted.length > 0) {
        yield* Effect.logInfo(`resumed ${resumed.length} session(s); ${exhausted.length} gave up after the attempt cap`)
      }
    }),
  )
  return resume.pipe(Layer.provideMerge(Restart.layer), Layer.provideMerge(plugins))
}

export type HostServices = Layer.Success<ReturnType<typeof HostLayer>>
