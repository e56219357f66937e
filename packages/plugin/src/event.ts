import type { SessionDurableEvent, SessionLiveEvent } from "@opencode-ai/schema"
import type { Effect, Scope } from "effect"

/**
 * An event as a plugin receives it: exactly what the host's live streams send (upstream OpenCode v2's
 * envelope, `{ id, type, durable?, data: { ...fields, sessionID, timestamp } }`, data in its JSON
 * encoding). A committed event carries `durable { aggregateID, seq, version }`; a live-only one (deltas,
 * status) has none.
 */
export type PluginEvent = SessionDurableEvent | SessionLiveEvent

/** Every event type a plugin may subscribe to, or `"*"` for all of them. */
export type PluginEventType = PluginEvent["type"] | "*"

/** The events a subscription to `T` receives. */
export type PluginEventOf<T extends PluginEventType> = T extends "*" ? PluginEvent : Extract<PluginEvent, { type: T }>

export interface SubscribeOptions {
  /**
   * Events that may wait for this subscriber while it is still handling an earlier one. Default 1000.
   * When the buffer is full, further events are dropped for this subscriber (the host reports it once per
   * overflow) and the host never waits: a slow subscriber misses events, it does not slow a turn.
   */
  readonly buffer?: number
}

/**
 * `ctx.event.subscribe` for Promise plugins: `fn` receives every matching event after it commits (live
 * ones as they are published), one at a time and in order; the host awaits each call before the next.
 * A throw or rejection is logged and the subscription goes on. Returns the unsubscribe function;
 * subscriptions also end when the plugin unloads.
 */
export interface PromiseEvents {
  subscribe<T extends PluginEventType>(
    type: T,
    fn: (event: PluginEventOf<T>) => void | Promise<void>,
    options?: SubscribeOptions,
  ): () => void
}

/**
 * `ctx.event.subscribe` for Effect plugins: the same delivery as the Promise flavour. The subscription lives
 * as long as the surrounding scope; the returned effect unsubscribes earlier.
 */
export interface EffectEvents {
  subscribe<T extends PluginEventType>(
    type: T,
    fn: (event: PluginEventOf<T>) => Effect.Effect<void, unknown>,
    options?: SubscribeOptions,
  ): Effect.Effect<Effect.Effect<void>, never, Scope.Scope>
}
