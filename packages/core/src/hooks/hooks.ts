import type { ErrorInfo } from "@opencode-ai/schema"
import type { HookEvents, HookName } from "@opencode-ai/plugin"
import { Context, Effect, Layer, Schema } from "effect"

/** How long one hook callback may run when `hooks.preflightTimeout` does not say (ms). */
export const DEFAULT_HOOK_TIMEOUT = 30_000

/** The bound on every hook callback and event delivery: `hooks.preflightTimeout`, or 30 s. */
export const hookTimeout = (config: { readonly hooks?: { readonly preflightTimeout?: number } | undefined }): number =>
  config.hooks?.preflightTimeout ?? DEFAULT_HOOK_TIMEOUT

/** A plugin hook callback threw, rejected, failed or timed out. Fails the turn it belongs to, recorded on it. */
export class HookError extends Schema.TaggedError<HookError>()("Plugin.HookError", {
  pluginID: Schema.String,
  hook: Schema.String,
  message: Schema.String,
}) {}

/** A hook failure as recorded on the turn's assistant message: it names the plugin and the hook. */
export const recordedHookError = (error: HookError): ErrorInfo => ({
  type: "unknown",
  name: error._tag,
  message: error.message,
  pluginID: error.pluginID,
  hook: error.hook,
})

export interface Registration<K extends HookName = HookName> {
  readonly pluginID: string
  readonly run: (event: HookEvents[K]) => Effect.Effect<void, unknown>
}

export interface HooksShape {
  /** Registers a callback under a plugin id; returns the disposer. */
  register<K extends HookName>(name: K, registration: Registration<K>): () => void
  /** Current registrations for a hook, in registration order. */
  list<K extends HookName>(name: K): ReadonlyArray<Registration<K>>
  /**
   * Runs every callback of a hook in order, awaiting each, each bounded by `timeout` (ms) when given.
   * `each` runs after every callback (the context hook uses it to assign origins per plugin).
   */
  run<K extends HookName>(
    name: K,
    event: HookEvents[K],
    options?: { readonly timeout?: number; readonly each?: (pluginID: string) => void },
  ): Effect.Effect<void, HookError>
}

const describe = (cause: unknown) => {
  if (cause instanceof Error) return cause.message
  if (typeof cause === "object" && cause !== null && "message" in cause)
    return String((cause as { message: unknown }).message)
  return String(cause)
}

/** The hook registry shared by the plugin host (which registers) and the runner (which runs). */
export class Hooks extends Context.Service<Hooks, HooksShape>()("@opencode-ai/core/plugin/Hooks") {
  static readonly layer = Layer.sync(Hooks, () => {
    const registry = new Map<HookName, Array<Registration<any>>>()
    const implementation = Hooks.of({
      register: (name, registration) => {
        const list = registry.get(name) ?? []
        list.push(registration)
        registry.set(name, list)
        return () => {
          const current = registry.get(name)
          if (!current) return
          const index = current.indexOf(registration)
          if (index !== -1) current.splice(index, 1)
        }
      },
      list: (name) => [...(registry.get(name) ?? [])],
      run: Effect.fn("Hooks.run")((name, event, options = {}) =>
        Effect.gen(function* () {
          yield* Effect.annotateCurrentSpan("hook.name", name)
          for (const registration of [...(registry.get(name) ?? [])]) {
            let call = Effect.suspend(() => registration.run(event)).pipe(
              Effect.catchDefect((defect) => Effect.fail(defect)),
              Effect.mapError(
                (cause) => new HookError({ pluginID: registration.pluginID, hook: name, message: describe(cause) }),
              ),
            )
            if (options.timeout !== undefined) {
              const ms = options.timeout
              call = call.pipe(
                Effect.timeoutOrElse({
                  duration: ms,
                  orElse: () =>
                    Effect.fail(
                      new HookError({
                        pluginID: registration.pluginID,
                        hook: name,
                        message: `timed out after ${ms} ms`,
                      }),
                    ),
                }),
              )
            }
            yield* call
            options.each?.(registration.pluginID)
          }
        }),
      ),
    })
    return implementation
  })
}
