import type { EffectEvents, PluginEvent, PluginEventType, PromiseEvents, SubscribeOptions } from "@opencode-ai/plugin"
import { Cause, Clock, Context, Effect, Fiber, Scope } from "effect"
import type { Bus, BusEvent } from "../bus/bus.ts"
import { wireEvent } from "../bus/wire-event.ts"
import { SessionEvent } from "../domain/event.ts"

/** Events a subscription may have waiting when it does not say (`SubscribeOptions.buffer`). */
export const DEFAULT_EVENT_BUFFER = 1000
const MAX_EVENT_BUFFER = 1_000_000

export interface SubscriptionInput {
  readonly bus: Bus["Service"]
  readonly pluginID: string
  readonly type: PluginEventType
  readonly buffer?: number
  readonly deliver: (event: PluginEvent) => Effect.Effect<void, unknown>
  /** How long one delivery may take (ms, `hooks.preflightTimeout`); a slower one is logged and skipped. */
  readonly timeout: number
  /** The host's services (logger, level): the delivery fiber runs with them. */
  readonly host: Context.Context<never>
}

const describe = (cause: Cause.Cause<unknown>) => {
  const error = Cause.squash(cause)
  return error instanceof Error ? error.message : String(error)
}

/**
 * One plugin subscription. The bus calls the listener synchronously after a commit; the listener only
 * appends to this subscription's bounded buffer, and one fiber per subscription hands the events to the
 * plugin one at a time, in order, awaiting each for at most `timeout`. So a plugin that is slow, never answers or throws never
 * delays a commit or a turn: when its buffer is full, events are dropped for it alone, and the overflow
 * is reported once (a warning through the host's logger and a live `plugin.event.overflowed` event on the
 * session whose event was dropped) until the subscriber has caught up with everything it kept.
 */
export const subscribeEvents = (input: SubscriptionInput): (() => void) => {
  const { bus, pluginID, type } = input
  const limit = Math.max(1, Math.min(MAX_EVENT_BUFFER, Math.floor(input.buffer ?? DEFAULT_EVENT_BUFFER)))
  const run = Effect.runForkWith(input.host)
  const clock = Context.get(input.host, Clock.Clock)
  let queue: Array<PluginEvent> = []
  let head = 0
  let closed = false
  let fiber: Fiber.Fiber<void> | undefined
  let draining = false
  let missed = 0

  const take = (): PluginEvent | undefined => {
    if (head >= queue.length) return undefined
    const event = queue[head]!
    queue[head++] = undefined as never
    // Compact once the consumed prefix dominates, so the buffer's memory follows its occupancy.
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head)
      head = 0
    }
    return event
  }

  const drain: Effect.Effect<void> = Effect.gen(function* () {
    for (let event = take(); event !== undefined && !closed; event = take()) {
      yield* Effect.suspend(() => input.deliver(event!)).pipe(
        Effect.timeoutOrElse({
          duration: input.timeout,
          orElse: () => Effect.fail(new Error(`timed out after ${input.timeout} ms`)),
        }),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.logError(`plugin event subscriber failed: ${describe(cause)}`).pipe(
                Effect.annotateLogs({ plugin: pluginID, event: event!.type }),
              ),
        ),
      )
    }
    if (missed > 0 && !closed) {
      yield* Effect.logWarning(`plugin event subscriber caught up after missing ${missed} event(s)`).pipe(
        Effect.annotateLogs({ plugin: pluginID, subscription: type }),
      )
      missed = 0
    }
  }).pipe(
    Effect.ensuring(
      Effect.sync(() => {
        draining = false
        fiber = undefined
        // An event that arrived while the loop was finishing starts the next one.
        if (!closed && head < queue.length) start()
      }),
    ),
  )

  // A deliverer that completes synchronously finishes before `run` returns: `draining` is the truth.
  function start() {
    draining = true
    const started = run(drain)
    if (draining) fiber = started
  }

  const overflow = (dropped: BusEvent) => {
    run(
      Effect.logWarning(
        `plugin event subscriber is ${limit} event(s) behind: it misses events until it catches up`,
      ).pipe(Effect.annotateLogs({ plugin: pluginID, subscription: type, dropped: dropped.type })),
    )
    // Published after the current delivery, so every other listener still gets the bus's order.
    queueMicrotask(() => {
      if (closed) return
      bus.publish(SessionEvent.PluginEventOverflowed, dropped.sessionID, {
        pluginID,
        subscription: type,
        buffer: limit,
        dropped: dropped.type,
      })
    })
  }

  const unsubscribe = bus.subscribe((event) => {
    if (closed || (type !== "*" && event.type !== type)) return
    if (queue.length - head >= limit) {
      if (missed++ === 0) overflow(event)
      return
    }
    queue.push(wireEvent(bus, event, clock.currentTimeMillisUnsafe()) as PluginEvent)
    if (!draining) start()
  })

  return () => {
    if (closed) return
    closed = true
    unsubscribe()
    queue = []
    head = 0
    const running = fiber
    if (running) run(Fiber.interrupt(running))
  }
}

const checkType = (type: unknown): PluginEventType => {
  if (typeof type !== "string" || type.length === 0)
    throw new TypeError(`event.subscribe: type must be an event type or "*", got ${String(type)}`)
  return type as PluginEventType
}

const bufferOf = (options: SubscribeOptions | undefined) => {
  const buffer = options?.buffer
  if (buffer === undefined) return undefined
  if (typeof buffer !== "number" || !Number.isFinite(buffer) || buffer < 1)
    throw new TypeError(`event.subscribe: buffer must be a positive number, got ${String(buffer)}`)
  return buffer
}

/** `ctx.event` for a Promise plugin; `track` ties each subscription to the plugin's lifetime. */
export const promiseEvents = (
  bus: Bus["Service"],
  pluginID: string,
  host: Context.Context<never>,
  track: (dispose: () => void) => () => void,
  timeout: number,
): PromiseEvents => ({
  subscribe: (type, fn, options) => {
    if (typeof fn !== "function") throw new TypeError("event.subscribe: the callback must be a function")
    const buffer = bufferOf(options)
    return track(
      subscribeEvents({
        bus,
        pluginID,
        type: checkType(type),
        ...(buffer !== undefined ? { buffer } : {}),
        host,
        timeout,
        deliver: (event) => Effect.tryPromise({ try: async () => fn(event as never), catch: (cause) => cause }),
      }),
    )
  },
})

/** `ctx.event` for an Effect plugin: each subscription lives as long as the scope it is made in. */
export const effectEvents = (
  bus: Bus["Service"],
  pluginID: string,
  host: Context.Context<never>,
  timeout: number,
): EffectEvents => ({
  subscribe: (type, fn, options) =>
    Effect.gen(function* () {
      const buffer = bufferOf(options)
      const dispose = subscribeEvents({
        bus,
        pluginID,
        type: checkType(type),
        ...(buffer !== undefined ? { buffer } : {}),
        host,
        timeout,
        deliver: (event) => Effect.suspend(() => fn(event as never)),
      })
      yield* Scope.addFinalizer(yield* Scope.Scope, Effect.sync(dispose))
      return Effect.sync(dispose)
    }).pipe(Effect.orDie),
})
