/**
 * HTTP/1.1 over a raw TCP socket, for requests `fetch` cannot send as written: unnormalised paths
 * (`/a/%2e%2e`), malformed or oversized headers, a `Content-Length` that lies. One request per
 * connection (`Connection: close`); the answer is read until the server closes.
 */

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** The whole answer as received (status line, headers and body). */
  readonly raw: string
}

/** Decodes a chunked body (the server streams JSON bodies it did not measure). */
const unchunk = (body: string) => {
  let out = ""
  let rest = body
  for (;;) {
    const line = rest.indexOf("\r\n")
    if (line === -1) return out
    const size = Number.parseInt(rest.slice(0, line), 16)
    if (!Number.isFinite(size) || size === 0) return out
    out += rest.slice(line + 2, line + 2 + size)
    rest = rest.slice(line + 2 + size + 2)
  }
}

export const parseResponse = (whole: string): RawResponse => {
  // Interim answers (`100 Continue`) come first; the final one follows.
  let raw = whole
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes("\r\n\r\n")) raw = raw.slice(raw.indexOf("\r\n\r\n") + 4)
  const split = raw.indexOf("\r\n\r\n")
  const head = split === -1 ? raw : raw.slice(0, split)
  const rawBody = split === -1 ? "" : raw.slice(split + 4)
  const [statusLine = "", ...lines] = head.split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const body = headers["transfer-encoding"]?.includes("chunked") ? unchunk(rawBody) : rawBody
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body, raw: whole }
}

/** Sends `text` as is to `url`'s host and port and returns the parsed answer. */
export const rawRequest = async (url: string, text: string | Uint8Array): Promise<RawResponse> => {
  const { hostname, port } = new URL(url)
  const chunks: Array<Uint8Array> = []
  await new Promise<void>((resolve, reject) => {
    Bun.connect({
      hostname: hostname.replace(/^\[|\]$/g, ""),
      port: Number(port),
      socket: {
        open(socket) {
          socket.write(text)
        },
        data(_socket, data) {
          chunks.push(new Uint8Array(data))
        },
        close() {
          resolve()
        },
        error(_socket, error) {
          reject(error)
        },
      },
    }).catch(reject)
  })
  return parseResponse(Buffer.concat(chunks).toString("latin1"))
}

/** A request line and headers (plus optional body) as one HTTP/1.1 message that closes the connection. */
export const message = (method: string, target: string, headers: Record<string, string> = {}, body = ""): string => {
  const all: Record<string, string> = { connection: "close", ...headers }
  if (body !== "" && all["content-length"] === undefined) all["content-length"] = String(Buffer.byteLength(body))
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}`)
  return `${method} ${target} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${body}`
}
