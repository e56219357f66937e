import { afterEach, describe, expect, it } from "vitest"
import { type Collector, type OtlpSpan, startCollector } from "../../core/test/support/otlp-collector.ts"
import { startTestServer } from "./support/server.ts"

let collector: Collector | undefined
afterEach(async () => {
  await collector?.close()
  collector = undefined
})

describe("OTLP span export from the server", () => {
  it("a prompt over HTTP exports the turn's trace: Execution.prompt, then Runner.run and its steps", async () => {
    collector = await startCollector()
    const server = await startTestServer({ config: { telemetry: { otlp: { endpoint: collector.endpoint } } } })
    const sessionID = (await server.api.session.create({ title: "traced" })).data!.data.id
    await server.api.session.prompt({ sessionID, prompt: { text: "/tool list {}\nhello" } })
    await server.api.session.wait({ sessionID })
    // Stopping disposes the host, which flushes the exporter.
    await server.stop()

    const spans = collector.spans()
    const byID = new Map(spans.map((span) => [span.spanId, span]))
    const parentOf = (span: OtlpSpan) => (span.parentSpanId ? byID.get(span.parentSpanId) : undefined)
    const turn = spans.find(
      (span) =>
        span.name === "Runner.run" &&
        span.attributes?.some((a) => a.key === "session.id" && a.value.stringValue === sessionID),
    )
    expect(turn).toBeDefined()
    expect(parentOf(turn!)?.name).toBe("Execution.prompt")
    const steps = spans.filter((span) => span.name === "Runner.step" && span.parentSpanId === turn!.spanId)
    expect(steps).toHaveLength(2)
    expect(spans.some((span) => span.name === "Session.create")).toBe(true)
    expect(spans.some((span) => span.name === "Execution.wait")).toBe(true)
  })
})
