import type { EffectPlugin, Plugin, PromisePlugin } from "@opencode-ai/plugin"
import { PluginStatus } from "@opencode-ai/schema"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { isAbsolute, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { Bus } from "../bus/bus.ts"
import { Config } from "../config/config.ts"
import { Modules } from "../platform/modules.ts"
import { Providers } from "../provider/registry.ts"
import { checkChoice } from "../turn/choice.ts"
import { Execution } from "../turn/execution.ts"
import { Erase } from "../maintenance/erase.ts"
import { Mutation } from "../maintenance/mutation.ts"
import { Prune } from "../maintenance/prune.ts"
import { Session } from "../session/session.ts"
import { effectSession, promiseSession, type TranscriptRights } from "./context.ts"
import { effectEvents, promiseEvents } from "./events.ts"
import { Hooks, hookTimeout } from "../hooks/hooks.ts"
import { PluginTools } from "../tool/plugin-tools.ts"
import { effectToolRegistry, promiseToolRegistry } from "./tool-registry.ts"

export { PluginStatus }

/** A plugin handed to the host in code rather than named in config (embedding, tests). */
export interface InlinePlugin {
  readonly source: string
  readonly plugin: Plugin
  /** Transcript rights, as the config grant: `"own"` (default) or `"any"`. */
  readonly transcript?: TranscriptRights
}

const isPromisePlugin = (value: unknown): value is PromisePlugin =>
  typeof value === "object" && value !== null && typeof (value as PromisePlugin).setup === "function"
const isEffectPlugin = (value: unknown): value is EffectPlugin =>
  typeof value === "object" && value !== null && typeof (value as EffectPlugin).effect === "function"

const message = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * Loads the plugins named in config (relative paths resolve against the config file's directory; other
 * names are installed packages resolved from there), gives each a context scoped to it, and unloads them
 * in reverse order when the host stops. A plugin that fails to load is logged and reported with its
 * error by `list()`, never silently skipped.
 */
export class PluginHost extends Context.Service<PluginHost, { list(): ReadonlyArray<PluginStatus> }>()(
  "@opencode-ai/core/plugin/PluginHost",
) {
  static readonly layer = (options: { readonly inline?: ReadonlyArray<InlinePlugin> } = {}) =>
    Layer.effect(
      PluginHost,
      Effect.gen(function* () {
        const config = yield* Config
        const providers = yield* Providers
        const bus = yield* Bus
        const modules = yield* Modules
        const services = {
          session: yield* Session,
          execution: yield* Execution,
          mutation: yield* Mutation,
          prune: yield* Prune,
          erase: yield* Erase,
          hooks: yield* Hooks,
          choice: (choice: { readonly agent?: string | undefined }) => checkChoice(config.data, providers, choice),
        }
        const pluginTools = yield* PluginTools
        const layerScope = yield* Effect.scope
        // A Promise plugin's `ctx.log` is called outside any fiber: it runs with the host's logger and level.
        const hostContext = yield* Effect.context<never>()
        const statuses: Array<PluginStatus> = []
        const ids = new Set<string>()

        const importPlugin = (spec: string) =>
          Effect.tryPromise({
            try: async () => {
              const path =
                spec.startsWith(".") || isAbsolute(spec)
                  ? resolve(config.directory, spec)
                  : modules.resolve(spec, config.directory)
              const module = await import(pathToFileURL(path).href)
              return (module.default ?? module.plugin) as unknown
            },
            catch: (cause) => new Error(`cannot import "${spec}": ${message(cause)}`),
          })

        const activate = (source: string, candidate: unknown, transcript: TranscriptRights = "own") =>
          Effect.gen(function* () {
            if (!isPromisePlugin(candidate) && !isEffectPlugin(candidate)) {
              return yield* Effect.fail(
                new Error("the module's default export is not a plugin ({ id, setup } or { id, effect })"),
              )
            }
            const id = (candidate as { id?: unknown }).id
            if (typeof id !== "string" || !/^[A-Za-z0-9._@/-]+$/.test(id)) {
              return yield* Effect.fail(new Error("the plugin needs an `id` of letters, digits and . _ @ / -"))
            }
            if (ids.has(id)) return yield* Effect.fail(new Error(`another plugin already uses the id "${id}"`))
            const scope = yield* Scope.fork(layerScope, "sequential")
            const session = effectSession(id, services, scope, transcript)
            // Both flavours log through the host's logger and level, annotated with the plugin id.
            const log = (text: string, fields?: Record<string, unknown>) =>
              Effect.logInfo(text).pipe(Effect.annotateLogs({ plugin: id, ...fields }))
            const loaded = isEffectPlugin(candidate)
              ? Scope.provide(
                  candidate.effect({
                    id,
                    directory: config.directory,
                    session,
                    log,
                    tool: effectToolRegistry(id, pluginTools, services.mutation),
                    event: effectEvents(bus, id, hostContext, hookTimeout(config.data)),
                  }),
                  scope,
                ).pipe(Effect.as("effect" as const))
              : Effect.gen(function* () {
                  const track = (dispose: () => void) => {
                    Effect.runSync(Scope.addFinalizer(scope, Effect.sync(dispose)))
                    return dispose
                  }
                  const cleanup = yield* Effect.tryPromise({
                    try: async () =>
                      candidate.setup({
                        id,
                        directory: config.directory,
                        session: promiseSession(session, id, services.hooks, track, hostContext),
                        tool: promiseToolRegistry(id, pluginTools, services.mutation, track),
                        event: promiseEvents(bus, id, hostContext, track, hookTimeout(config.data)),
                        log: (text, fields) => void Effect.runForkWith(hostContext)(log(text, fields)),
                      }),
                    catch: (cause) => cause,
                  })
                  if (typeof cleanup === "function") {
                    yield* Scope.addFinalizer(
                      scope,
                      Effect.tryPromise(async () => cleanup()).pipe(
                        Effect.ignore({ log: "Warn", message: `plugin ${id}: cleanup failed` }),
                        // Finalizers run on the fiber closing the host, which may not carry the host's logger.
                        Effect.provideContext(hostContext),
                      ),
                    )
                  }
                  return "promise" as const
                })
            const flavour = yield* loaded.pipe(
              Effect.onError(() => Scope.close(scope, Exit.void)),
              Effect.mapError((cause) => new Error(`setup failed: ${message(cause)}`)),
            )
            ids.add(id)
            statuses.push({ id, source, status: "loaded", flavour })
          }).pipe(
            Effect.catch((error: Error) =>
              Effect.gen(function* () {
                const id = (candidate as { id?: unknown } | undefined)?.id
                statuses.push({
                  ...(typeof id === "string" ? { id } : {}),
                  source,
                  status: "failed",
                  error: error.message,
                })
                yield* Effect.logError(`plugin ${source} failed to load: ${error.message}`)
              }),
            ),
          )

        for (const entry of config.data.plugin ?? []) {
          const spec = typeof entry === "string" ? entry : entry.path
          const imported = yield* Effect.result(importPlugin(spec))
          if (imported._tag === "Failure") {
            statuses.push({ source: spec, status: "failed", error: imported.failure.message })
            yield* Effect.logError(`plugin ${spec} failed to load: ${imported.failure.message}`)
            continue
          }
          yield* activate(spec, imported.success, typeof entry === "string" ? "own" : (entry.transcript ?? "own"))
        }
        for (const inline of options.inline ?? []) yield* activate(inline.source, inline.plugin, inline.transcript)

        return PluginHost.of({ list: () => [...statuses] })
      }),
    )
}
