import { Effect } from "effect"

/**
 * A service's implementation with every method that returns an `Effect` run as an `Effect.fn` span named
 * `<service>.<method>` (`Session.create`, `Bus.commit`, `Runner.run`): the spans a trace of a turn is made
 * of (docs/architecture.md, "Spans"). Methods that answer synchronously (`running`, `subscribe`, the `sync`
 * readers), return a `Stream` or a `Promise`, and plain values are left as they are, so wrapping changes no
 * behaviour. Applied to the whole shape where the layer builds it, so a method added later is spanned too.
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
    // The method's own effect becomes the span's body; `Effect.fn` opens the span when it runs.
    const span = Effect.fn(`${service}.${key}`)((effect: Effect.Effect<unknown, unknown, unknown>) => effect)
    spanned[key] = function (this: unknown, ...args: Array<unknown>) {
      const result = method.apply(this, args)
      return Effect.isEffect(result) ? span(result) : result
    }
  }
  return spanned as S
}
