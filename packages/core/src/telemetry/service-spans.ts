import { Effect } from "effect"

/**
 * A service's implementation with every method that returns an `Effect` run inside a span named
 * `<service>.<method>` (`Session.create`, `Bus.commit`, `Runner.run`): the spans a trace of a turn is made
 * of (docs/architecture.md, "Spans"). Methods that answer synchronously (`running`, `subscribe`, the `sync`
 * readers), return a `Stream` or a `Promise`, and plain values are left as they are, so wrapping changes no
 * behaviour. Applied to the whole shape where the layer builds it, so a method added later is spanned too.
 *
 * The span is what `Effect.fn("Service.method")` opens, without its call-site stack capture: every call
 * goes through this wrapper, so the captured frame would always name this file, and taking it (two
 * `Error` objects per call) was most of a span's cost on the turn path (bench/turn-overhead.ts).
 */
export const withServiceSpans = <S extends object>(service: string, shape: S): S => {
  const spanned: Record<string, unknown> = {}
  for (const key of Object.keys(shape)) {
    const value = (shape as Record<string, unknown>)[key]
    if (typeof value !== "function") {
      spanned[key] = value
      continue
    }
    const method = value as (...args: Array<unknown>) => unknown
    const span = Effect.withSpan(`${service}.${key}`, undefined, NO_STACK)
    spanned[key] = function (this: unknown, ...args: Array<unknown>) {
      const result = method.apply(this, args)
      return Effect.isEffect(result) ? span(result) : result
    }
  }
  return spanned as S
}

const NO_STACK = { captureStackTrace: false } as const
