import { Effect, Tracer } from "effect"

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
 *
 * Spans are opened when a tracing backend is installed (the OTLP exporter of `telemetry.otlp`, or a
 * test's tracer): with Effect's default in-memory tracer nothing could ever read them, and a span
 * (its record, its clock reads, a copy of the fiber's services to make it the parent) was a tenth of a
 * turn's host time.
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
      if (!Effect.isEffect(result)) return result
      return Effect.withFiber((fiber) => (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer ? result : span(result)))
    }
  }
  return spanned as S
}

const NO_STACK = { captureStackTrace: false } as const
