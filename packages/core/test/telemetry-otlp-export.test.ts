import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, References, Tracer } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Execution } from "../src/turn/execution.ts"
import { Session } from "../src/session/session.ts"
import { otlpSettings } from "../src/telemetry/telemetry.ts"
import { testHost } from "./support/host.ts"
import { type OtlpSpan, startCollector } from "./support/otlp-collector.ts"

/** A collector on loopback for the test, closed when it ends. */
const collecting = Effect.acquireRelease(
  Effect.promise(() => startCollector()),
  (collector) => Effect.promise(() => collector.close()),
)

describe("OTLP span export", () => {
  it.live(
    "exports a turn's spans to the configured collector: the turn under the prompt, service calls under the turn",
    () =>
      Effect.gen(function* () {
        const collector = yield* collecting
        const host = testHost({
          config: {
            telemetry: { otlp: { endpoint: collector.endpoint, headers: { "x-collector-key": "k1" } } },
          },
        })
        writeFileSync(join(host.directory, "notes.txt"), "some notes\n")
        // Stopping the host flushes the exporter: the collector has every span once the host is closed.
        const sessionID = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const info = yield* session.create({ directory: host.directory })
          yield* execution.prompt({ sessionID: info.id, prompt: { text: 'read\n/tool read {"path":"notes.txt"}' } })
          yield* execution.wait(info.id)
          return info.id
        }).pipe(Effect.provide(host.layer))

        expect(collector.exports.length).toBeGreaterThan(0)
        for (const sent of collector.exports) {
          expect(sent.path).toBe("/v1/traces")
          expect(sent.headers["x-collector-key"]).toBe("k1")
          expect(sent.headers["content-type"]).toContain("application/json")
          const service = sent.body.resourceSpans[0]!.resource.attributes.find((a) => a.key === "service.name")
          expect(service?.value.stringValue).toBe("opencode2")
        }
        const spans = collector.spans()
        const byID = new Map(spans.map((span) => [span.spanId, span]))
        const named = (name: string) => spans.filter((span) => span.name === name)
        const parentOf = (span: OtlpSpan) => (span.parentSpanId ? byID.get(span.parentSpanId) : undefined)
        const ancestors = (span: OtlpSpan): Array<string> => {
          const parent = parentOf(span)
          return parent ? [parent.name, ...ancestors(parent)] : []
        }

        const [prompt] = named("Execution.prompt")
        const [turn] = named("Runner.run")
        expect(prompt).toBeDefined()
        expect(turn).toBeDefined()
        // The turn runs in its own fiber, forked by the admission the prompt made.
        expect(parentOf(turn!)?.name).toBe("Execution.prompt")
        expect(turn!.traceId).toBe(prompt!.traceId)
        expect(turn!.attributes?.find((a) => a.key === "session.id")?.value.stringValue).toBe(sessionID)
        // What the turn did, each a child (or deeper descendant) of the turn's span.
        const under = (name: string) => named(name).filter((span) => ancestors(span).includes("Runner.run"))
        expect(under("Bus.commit").length).toBeGreaterThan(0)
        expect(under("Hooks.run").length).toBeGreaterThan(0)
        expect(under("Providers.client").length).toBeGreaterThan(0)
        expect(under("Permissions.decide").length).toBeGreaterThan(0)
        // Each model request is a step of the turn, and the tool call of the first one a span of its own.
        const steps = named("Runner.step")
        expect(steps).toHaveLength(2)
        for (const step of steps) expect(parentOf(step)?.name).toBe("Runner.run")
        const [call] = named("Tool.call")
        expect(call!.attributes?.find((a) => a.key === "tool.name")?.value.stringValue).toBe("read")
        expect(parentOf(call!)?.name).toBe("Runner.step")
        expect(ancestors(named("Permissions.decide")[0]!)).toContain("Tool.call")
        const hookNames = named("Hooks.run").map(
          (span) => span.attributes?.find((a) => a.key === "hook.name")?.value.stringValue,
        )
        expect(hookNames).toEqual(expect.arrayContaining(["prompt", "preflight", "context"]))
        // The admission itself is a service call of the prompt.
        expect(named("Bus.transact").some((span) => parentOf(span)?.name === "Execution.prompt")).toBe(true)
      }),
  )

  it.live("opens no span without a tracer, and every service span under a tracer installed beneath the host", () =>
    Effect.gen(function* () {
      const run = Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hello" } })
        yield* execution.wait(info.id)
        return yield* References.TracerEnabled
      })
      const host = testHost()
      const opened: Array<string> = []
      const recording = Tracer.make({
        span(options) {
          opened.push(options.name)
          return Tracer.nativeTracer.span(options)
        },
      })
      // Effect's in-memory default tracer: nothing could read a span, so none is opened.
      expect(yield* run.pipe(Effect.provide(host.layer))).toBe(false)
      // A tracer beneath the host (as an embedding program would install one) gets them all.
      const traced = host.layer.pipe(Layer.provide(Layer.succeed(Tracer.Tracer, recording)))
      expect(yield* run.pipe(Effect.provide(traced), Effect.withTracer(recording))).toBe(true)
      expect(opened).toEqual(
        expect.arrayContaining(["Session.create", "Execution.prompt", "Runner.run", "Bus.transact"]),
      )
    }),
  )

  it("is off without an endpoint, and follows the standard OpenTelemetry variables", () => {
    expect(otlpSettings(undefined, {})).toBeUndefined()
    expect(otlpSettings({}, { OTEL_SERVICE_NAME: "x" })).toBeUndefined()
    expect(otlpSettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" })).toEqual({
      url: "http://127.0.0.1:4318/v1/traces",
      headers: {},
      serviceName: "opencode2",
    })
    expect(
      otlpSettings(undefined, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9999/custom/traces",
        OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b, tenant=t1",
        OTEL_SERVICE_NAME: "agent-host",
      }),
    ).toEqual({
      url: "http://127.0.0.1:9999/custom/traces",
      headers: { "api-key": "a b", tenant: "t1" },
      serviceName: "agent-host",
    })
    // The config's endpoint and headers win over the environment's.
    expect(
      otlpSettings(
        { otlp: { endpoint: "http://collector:4318/base", headers: { tenant: "t2" }, serviceName: "mine" } },
        { OTEL_EXPORTER_OTLP_ENDPOINT: "http://other:4318", OTEL_EXPORTER_OTLP_HEADERS: "tenant=t1,a=b" },
      ),
    ).toEqual({ url: "http://collector:4318/base/v1/traces", headers: { tenant: "t2", a: "b" }, serviceName: "mine" })
    // Switched off: by the config, by OTEL_SDK_DISABLED, or by OTEL_TRACES_EXPORTER=none.
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }
    expect(otlpSettings({ otlp: { enabled: false } }, env)).toBeUndefined()
    expect(otlpSettings(undefined, { ...env, OTEL_SDK_DISABLED: "true" })).toBeUndefined()
    expect(otlpSettings(undefined, { ...env, OTEL_TRACES_EXPORTER: "none" })).toBeUndefined()
  })

  it.live("exports from a host whose only switch is OTEL_EXPORTER_OTLP_ENDPOINT", () =>
    Effect.gen(function* () {
      const collector = yield* collecting
      // Set while the host runs, put back once it is closed.
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Effect.acquireRelease(
            Effect.sync(() => {
              const previous = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
              process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.endpoint
              return previous
            }),
            (previous) =>
              Effect.sync(() => {
                if (previous === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
                else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = previous
              }),
          )
          const host = testHost()
          yield* Effect.gen(function* () {
            const session = yield* Session
            yield* session.create({ directory: host.directory })
          }).pipe(Effect.provide(host.layer))
        }),
      )
      expect(collector.spans().map((span) => span.name)).toContain("Session.create")
    }),
  )
})
