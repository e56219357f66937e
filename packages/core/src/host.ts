import { Effect, Layer } from "effect"
import { Bus } from "./bus/bus.ts"
import { Commands } from "./command/commands.ts"
import { Skills } from "./command/skills.ts"
import { Config, type ConfigShape } from "./config/config.ts"
import { Mcp } from "./mcp/mcp.ts"
import { Lsp } from "./lsp/lsp.ts"
import { Formatters } from "./format/format.ts"
import { Permissions } from "./permission/permission.ts"
import { Questions } from "./question/question.ts"
import { Todos } from "./todo/todo.ts"
import { Hooks } from "./hooks/hooks.ts"
import { type InlinePlugin, PluginHost } from "./plugin/host.ts"
import { PluginTools } from "./tool/plugin-tools.ts"
import { Providers } from "./provider/registry.ts"
import { Erase } from "./maintenance/erase.ts"
import { Execution } from "./turn/execution.ts"
import { Mutation } from "./maintenance/mutation.ts"
import { ProjectorsLive } from "./session/projector.ts"
import { Prune } from "./maintenance/prune.ts"
import { Restart } from "./turn/restart.ts"
import { Transfer } from "./maintenance/transfer.ts"
import { Revert } from "./maintenance/revert.ts"
import { StatusLayer } from "./session/status.ts"
import { TitleLayer } from "./turn/title.ts"
import { Runner } from "./turn/runner/llm.ts"
import { Session } from "./session/session.ts"
import { Subagents } from "./turn/subagent.ts"
import { Turns } from "./session/turns.ts"
import { StorageLayer } from "./storage/layer.ts"
import { Retention } from "./maintenance/retention.ts"
import { RetentionSchedule } from "./maintenance/retention-schedule.ts"
import { TelemetryLayer } from "./telemetry/telemetry.ts"

export interface StoreOptions {
  /** SQLite file path, or `:memory:`. */
  readonly path: string
  /** Whether committed events are also appended to the journal (`events.persist`). */
  readonly persist: boolean
}

/**
 * The event-sourced store: storage (database, blobs, stats) with the bus, its projectors and the session
 * read model on top. Composed here, not in `storage/`, so storage never depends on the domain.
 */
export const StoreLayer = (options: StoreOptions) => {
  const storage = StorageLayer({ path: options.path })
  const bus = Bus.layer({ persist: options.persist }).pipe(Layer.provide(ProjectorsLive))
  return Session.layer.pipe(Layer.provideMerge(bus), Layer.provideMerge(storage), Layer.provideMerge(Turns.layer))
}

/**
 * The store plus prune, erase, export/import and retention, without turns, providers or plugins: what
 * maintenance commands need to work on a database file directly.
 */
export const MaintenanceLayer = (options: StoreOptions) =>
  Retention.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Prune.layer, Erase.layer, Transfer.layer)),
    Layer.provideMerge(StoreLayer(options)),
  )

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
 * mutations, prune and erase, retention (`storage.retention`), plugins and restart resume. Plugins are activated before any claimed session resumes, so
 * the first resumed request already runs their `session.preflight` hooks.
 */
export const HostLayer = (options: HostOptions) => {
  const config = Config.layer(options.config)
  const store = StoreLayer({ path: options.database, persist: options.config.data.events?.persist !== false })
  // Commands and skills: the definition files of a session directory and the global config directory.
  const definitions = Layer.mergeAll(Commands.layer, Skills.layer)
  // Language servers and formatters: nothing starts until an edit or the `lsp` tool needs it.
  const code = Layer.mergeAll(Lsp.layer, Formatters.layer)
  const base = Layer.mergeAll(Hooks.layer, PluginTools.layer, Providers.layer, definitions, Mcp.layer, code).pipe(
    Layer.provideMerge(config),
  )
  const runner = Runner.layer.pipe(
    Layer.provideMerge(Subagents.layer),
    Layer.provideMerge(Layer.mergeAll(Permissions.layer, Questions.layer, Todos.layer)),
    Layer.provideMerge(Layer.merge(store, base)),
  )
  const execution = Layer.mergeAll(
    Execution.layer,
    Mutation.layer,
    Revert.layer,
    Prune.layer,
    Erase.layer,
    StatusLayer,
    TitleLayer,
  ).pipe(Layer.provideMerge(runner))
  // Fork copies a transcript with the code `session import` uses.
  const transfer = Transfer.layer.pipe(Layer.provideMerge(execution))
  const retention = Retention.layer.pipe(Layer.provideMerge(transfer))
  const plugins = PluginHost.layer({ inline: options.plugins ?? [] }).pipe(Layer.provideMerge(retention))
  const autoResume = options.autoResume ?? options.config.data.server?.autoResume ?? true
  // Resumes run in the background: a plugin hook a resume runs can delay that session's turn, never the
  // host's start (nor the server listening on it).
  const resume = Layer.effectDiscard(
    Effect.gen(function* () {
      if (!autoResume) return
      yield* (yield* Restart).resumeInBackground()
    }),
  )
  // Retention starts once claimed sessions are resuming (it leaves claimed sessions alone either way).
  return RetentionSchedule.pipe(
    Layer.provideMerge(resume),
    Layer.provideMerge(Restart.layer),
    Layer.provideMerge(plugins),
    // Beneath everything: the exporter (when configured) is the `Tracer` of every fiber the host starts, and
    // it is closed last, after the other services' finalizers, so their spans are flushed too.
    Layer.provideMerge(TelemetryLayer(options.config.data.telemetry)),
  )
}

export type HostServices = Layer.Success<ReturnType<typeof HostLayer>>
