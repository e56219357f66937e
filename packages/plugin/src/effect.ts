import type { Effect, Scope } from "effect"
import type { SessionError } from "./error.ts"
import type { EffectEvents } from "./event.ts"
import type { HookEvents, HookName } from "./hook.ts"
import type { Message, Page, SessionInfo } from "./message.ts"
import type { EffectToolRegistry } from "./tool.ts"
import type { Admitted, EraseSummary, PruneSummary, SessionInput } from "./session.ts"

/** A hook callback for Effect plugins; a failure or defect fails the turn it belongs to. */
export type EffectHookCallback<K extends HookName> = (event: HookEvents[K]) => Effect.Effect<void, unknown>

/**
 * Session operations for Effect plugins: the same operations and error shapes as the Promise flavour
 * (see `PromiseSession`), failing in the typed error channel with {@link SessionError}.
 */
export interface EffectSession {
  /** Registers a hook callback for the lifetime of the surrounding scope. */
  hook<K extends HookName>(name: K, callback: EffectHookCallback<K>): Effect.Effect<void, never, Scope.Scope>
  get(input: SessionInput.Target): Effect.Effect<SessionInfo, SessionError>
  create(input?: SessionInput.Create): Effect.Effect<SessionInfo, SessionError>
  prompt(input: SessionInput.Prompt): Effect.Effect<Admitted, SessionError>
  synthetic(input: SessionInput.Synthetic): Effect.Effect<Admitted, SessionError>
  interrupt(input: SessionInput.Target): Effect.Effect<void, SessionError>
  wait(input: SessionInput.Target): Effect.Effect<void, SessionError>
  resume(input: SessionInput.Target): Effect.Effect<void, SessionError>
  messages(input: SessionInput.Messages): Effect.Effect<Page<Message>, SessionError>
  /** Batch prune, as `PromiseSession.prune`. */
  prune(input: SessionInput.Prune): Effect.Effect<PruneSummary, SessionError>
  /** Erase, as `PromiseSession.erase`. */
  erase(input: SessionInput.Target): Effect.Effect<EraseSummary, SessionError>
  readonly message: {
    get(input: SessionInput.MessageTarget): Effect.Effect<Message, SessionError>
    update(input: SessionInput.Correct): Effect.Effect<Message, SessionError>
    remove(input: SessionInput.MessageTarget): Effect.Effect<Message, SessionError>
  }
  readonly item: {
    remove(input: SessionInput.ItemTarget): Effect.Effect<Message, SessionError>
  }
}

export interface EffectPluginContext {
  readonly id: string
  readonly directory: string
  readonly session: EffectSession
  /** Registers tools the model may call (see `EffectToolDefinition`). */
  readonly tool: EffectToolRegistry
  /** The host's events, after commit and in order (see `EffectEvents`). */
  readonly event: EffectEvents
  /** Logs an info line through the host's logger (stderr), annotated with `plugin=<id>` and `fields`. */
  log(message: string, fields?: Record<string, unknown>): Effect.Effect<void>
}

/**
 * An Effect-flavoured plugin. `effect` runs once at load inside a scope that closes on unload, so
 * `ctx.session.hook` registrations and any resources it acquires are released with the plugin.
 */
export interface EffectPlugin {
  readonly id: string
  effect(ctx: EffectPluginContext): Effect.Effect<void, unknown, Scope.Scope>
}
