import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface OtlpSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes?: ReadonlyArray<{ key: string; value: { stringValue?: string } }>
}

export interface OtlpExport {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: {
    resourceSpans: ReadonlyArray<{
      resource: { attributes: ReadonlyArray<{ key: string; value: { stringValue?: string } }> }
      scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<OtlpSpan> }>
    }>
  }
}

/** An OTLP/HTTP collector on loopback: keeps every JSON export it is sent and answers 200. `spans()` flattens them. */
export const startCollector = async () => {
  const exports: Array<OtlpExport> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      exports.push({
        path: request.url ?? "",
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
      })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export type Collector = Awaited<ReturnType<typeof startCollector>>
