import { Effect, Layer, References, Schema, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

/**
 * `telemetry` in `opencode.json`. `otlp.endpoint` is an OTLP/HTTP collector's base URL (as
 * `OTEL_EXPORTER_OTLP_ENDPOINT`): spans are posted as JSON to `<endpoint>/v1/traces`. `headers` are sent
 * with every export (a collector's API key, say: `{env:VAR}` works here as everywhere in the file).
 * `enabled: false` turns the exporter off even when the environment names an endpoint.
 */
export const TelemetryConfig = Schema.Struct({
  otlp: Schema.optional(
    Schema.Struct({
      enabled: Schema.optional(Schema.Boolean),
      endpoint: Schema.optional(Schema.String),
      headers: Schema.optional(Schema.Record(Schema.String, Schema.String)),
      /** `service.name` of the exported resource. Default `OTEL_SERVICE_NAME`, else `opencode2`. */
      serviceName: Schema.optional(Schema.String),
    }),
  ),
})
export type TelemetryConfig = typeof TelemetryConfig.Type

/** Where and how spans are exported: the traces URL, the request headers and the service name. */
export interface OtlpSettings {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly serviceName: string
}

const DEFAULT_SERVICE_NAME = "opencode2"

const tracesUrl = (base: string) => `${base.replace(/\/+$/, "")}/v1/traces`

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values URI-encoded. */
const parseHeaders = (text: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    const raw = pair.slice(at + 1).trim()
    let value = raw
    try {
      value = decodeURIComponent(raw)
    } catch {
      // A value that is not URI-encoded is sent as written.
    }
    if (key) headers[key] = value
  }
  return headers
}

const disabled = (value: string | undefined) => value?.trim().toLowerCase() === "true"

/**
 * Whether spans are exported, and where: the config's `telemetry.otlp` first, then the standard OpenTelemetry
 * variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as it is; `OTEL_EXPORTER_OTLP_ENDPOINT`, a base URL;
 * `OTEL_EXPORTER_OTLP_HEADERS`; `OTEL_SERVICE_NAME`). `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` or
 * `enabled: false` turn it off. Undefined when nothing names an endpoint: no exporter, no export traffic.
 */
export const otlpSettings = (
  config: TelemetryConfig | undefined,
  env: Record<string, string | undefined>,
): OtlpSettings | undefined => {
  const otlp = config?.otlp
  if (otlp?.enabled === false || disabled(env.OTEL_SDK_DISABLED)) return undefined
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none" && otlp?.endpoint === undefined) return undefined
  const url = otlp?.endpoint
    ? tracesUrl(otlp.endpoint)
    : env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
      (env.OTEL_EXPORTER_OTLP_ENDPOINT && tracesUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT))
  if (!url) return undefined
  return {
    url,
    headers: { ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...otlp?.headers },
    serviceName: otlp?.serviceName ?? (env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME),
  }
}

/**
 * Spans off (`References.TracerEnabled`) while the tracer is Effect's in-memory default: nothing could
 * read them, and each cost a few microseconds on the turn path. A tracer installed beneath the host (a
 * test's, an embedding program's) keeps them on.
 */
const spansOffWithoutTracer = Layer.unwrap(
  Effect.withFiber((fiber) =>
    Effect.succeed(
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
        ? Layer.succeed(References.TracerEnabled, false)
        : Layer.empty,
    ),
  ),
)

/**
 * The span exporter, when `otlpSettings` names an endpoint: Effect's OTLP tracer (JSON over `fetch`) as the
 * host's `Tracer`, so every service method's span (`Effect.fn("Service.method")`) and every turn is exported.
 * Spans are sent in batches every 5 seconds and flushed when the host stops. Without an endpoint no span
 * is opened at all.
 */
export const TelemetryLayer = (
  config: TelemetryConfig | undefined,
  env: Record<string, string | undefined> = process.env,
) => {
  const settings = otlpSettings(config, env)
  if (!settings) return spansOffWithoutTracer
  return OtlpTracer.layer({
    url: settings.url,
    headers: settings.headers,
    resource: { serviceName: settings.serviceName },
  }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer), Layer.orDie)
}
