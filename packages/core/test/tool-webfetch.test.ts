import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { nonPublicReason } from "../src/tool/address.ts"
import { ForbiddenAddressError, ToolError, type ToolContext } from "../src/tool/tool.ts"
import { WEBFETCH_MAX_BYTES, webfetch, type WebfetchInput } from "../src/tool/webfetch.ts"
import type { WebfetchConfig } from "../src/config/webfetch.ts"

/** A loopback server; each test registers the routes it needs. */
type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void
const routes = new Map<string, Route>()
let server: http.Server
let base: string
/** Requests that reached the server, by path: a refused fetch must never connect. */
const hits: Array<string> = []

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? "")
    const route = routes.get(req.url ?? "")
    if (route) route(req, res)
    else {
      res.statusCode = 404
      res.end("not found")
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

const ctx = (signal = new AbortController().signal): ToolContext => ({ sessionID: "ses_test", directory: "/", signal })
const loopback: WebfetchConfig = { allowHosts: ["127.0.0.1"] }
const fetchOk = (input: WebfetchInput, config: WebfetchConfig = loopback) => webfetch(config).execute(input, ctx())
const fetchError = (input: WebfetchInput, config: WebfetchConfig = loopback) =>
  Effect.flip(webfetch(config).execute(input, ctx()))

const PAGE = `<!doctype html><html><head><title>T</title><style>body{color:red}</style><script>var secret = 1</script></head>
<body><h1>Release notes</h1><p>Version <strong>2.0</strong> adds <a href="https://example.com/x">links</a>.</p>
<ul><li>first</li><li>second</li></ul><pre><code>const a = 1</code></pre></body></html>`

describe("webfetch", () => {
  it.effect("an HTML page comes back as markdown by default, without scripts or styles", () =>
    Effect.gen(function* () {
      routes.set("/page", (_, res) => {
        res.setHeader("content-type", "text/html; charset=utf-8")
        res.end(PAGE)
      })
      const out = yield* fetchOk({ url: `${base}/page` })
      expect(out).toContain("# Release notes")
      expect(out).toContain("Version **2.0** adds [links](https://example.com/x).")
      expect(out).toMatch(/-\s+first/)
      expect(out).toContain("```\nconst a = 1\n```")
      expect(out).not.toContain("secret")
      expect(out).not.toContain("color:red")
    }),
  )

  it.effect("text gives the visible text and html the page as served", () =>
    Effect.gen(function* () {
      const text = yield* fetchOk({ url: `${base}/page`, format: "text" })
      expect(text).toContain("Release notes")
      expect(text).toContain("Version 2.0 adds links.")
      expect(text).not.toContain("<")
      expect(text).not.toContain("secret")
      const html = yield* fetchOk({ url: `${base}/page`, format: "html" })
      expect(html).toBe(PAGE)
    }),
  )

  it.effect("a non-HTML body is returned as it is", () =>
    Effect.gen(function* () {
      routes.set("/plain", (_, res) => {
        res.setHeader("content-type", "text/plain")
        res.end("<b>not html</b>")
      })
      expect(yield* fetchOk({ url: `${base}/plain` })).toBe("<b>not html</b>")
    }),
  )

  it.effect("loopback is refused by default, naming the address, and nothing connects", () =>
    Effect.gen(function* () {
      routes.set("/private", (_, res) => res.end("must not be read"))
      const before = hits.length
      const error = yield* fetchError({ url: `${base}/private` }, {})
      expect(error).toBeInstanceOf(ForbiddenAddressError)
      const forbidden = error as ForbiddenAddressError
      expect(forbidden.address).toBe("127.0.0.1")
      expect(forbidden.reason).toBe("loopback")
      expect(forbidden.message).toContain("127.0.0.1")
      expect(hits.length).toBe(before)
    }),
  )

  it.effect("a name resolving to loopback is refused with the resolved address", () =>
    Effect.gen(function* () {
      const error = (yield* fetchError({ url: "http://localhost:9/" }, {})) as ForbiddenAddressError
      expect(error._tag).toBe("Tool.ForbiddenAddressError")
      expect(error.host).toBe("localhost")
      expect(["127.0.0.1", "::1"]).toContain(error.address)
    }),
  )

  it.effect("private, link-local and mapped addresses are refused by default", () =>
    Effect.gen(function* () {
      for (const url of [
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://0.0.0.0/",
      ]) {
        const error = yield* fetchError({ url }, {})
        expect(error, url).toBeInstanceOf(ForbiddenAddressError)
      }
    }),
  )

  it("the address classification", () => {
    expect(nonPublicReason("8.8.8.8")).toBeUndefined()
    expect(nonPublicReason("2606:4700:4700::1111")).toBeUndefined()
    expect(nonPublicReason("172.31.255.255")).toBe("private")
    expect(nonPublicReason("172.32.0.1")).toBeUndefined()
    expect(nonPublicReason("100.64.0.1")).toContain("carrier-grade")
    expect(nonPublicReason("::ffff:10.0.0.1")).toContain("private")
    expect(nonPublicReason("::ffff:8.8.8.8")).toContain("IPv4-mapped")
    expect(nonPublicReason("64:ff9b::a00:1")).toContain("NAT64")
    expect(nonPublicReason("2002:7f00:1::")).toContain("6to4")
    expect(nonPublicReason("ff02::1")).toBe("multicast")
  })

  it.effect("a redirect to a forbidden address is refused at that hop", () =>
    Effect.gen(function* () {
      // Loopback on one spelling is allowed, the redirect target (another loopback name) is not.
      routes.set("/hop", (_, res) => {
        res.statusCode = 302
        res.setHeader("location", `http://localhost:${new URL(base).port}/secret`)
        res.end()
      })
      routes.set("/secret", (_, res) => res.end("internal"))
      const error = (yield* fetchError({ url: `${base}/hop` })) as ForbiddenAddressError
      expect(error._tag).toBe("Tool.ForbiddenAddressError")
      expect(error.host).toBe("localhost")
      expect(hits).not.toContain("/secret")
    }),
  )

  it.effect("an allowed redirect is followed", () =>
    Effect.gen(function* () {
      routes.set("/moved", (_, res) => {
        res.statusCode = 301
        res.setHeader("location", "/plain")
        res.end()
      })
      expect(yield* fetchOk({ url: `${base}/moved` })).toBe("<b>not html</b>")
    }),
  )

  it.effect("a body over 5 MB is cut there, visibly, and the rest is not read", () =>
    Effect.gen(function* () {
      const chunk = Buffer.alloc(64 * 1024, "a")
      let written = 0
      let closed = false
      routes.set("/big", (req, res) => {
        res.setHeader("content-type", "text/plain")
        req.socket.on("close", () => (closed = true))
        // Writes until the client goes away: far more than the cap if nothing stopped reading.
        const pump = () => {
          while (!closed && written < 64 * 1024 * 1024) {
            written += chunk.length
            if (!res.write(chunk)) return void res.once("drain", pump)
          }
          res.end()
        }
        pump()
      })
      const out = yield* fetchOk({ url: `${base}/big` })
      expect(out).toContain("[truncated: the response is larger than 5 MB")
      expect(out).toContain("[truncated: the output is")
      expect(written).toBeLessThan(64 * 1024 * 1024)
      expect(written).toBeGreaterThanOrEqual(WEBFETCH_MAX_BYTES)
    }),
  )

  it.effect("a server that never answers fails the call at the timeout", () =>
    Effect.gen(function* () {
      routes.set("/hang", () => {})
      const error = yield* fetchError({ url: `${base}/hang`, timeout: 1 })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("timed out after 1000 ms")
    }),
  )

  it.effect("only http and https, and error statuses fail", () =>
    Effect.gen(function* () {
      expect((yield* fetchError({ url: "file:///etc/passwd" })).message).toContain("only http:// and https://")
      expect((yield* fetchError({ url: "not a url" })).message).toContain("not a valid URL")
      expect((yield* fetchError({ url: `${base}/nothing-here` })).message).toContain("HTTP 404")
    }),
  )

  it.effect("a big page converts in a worker of its own while the event loop keeps running", () =>
    Effect.gen(function* () {
      const rows = Array.from({ length: 20_000 }, (_, i) => `<p>row <em>${i}</em></p>`).join("")
      routes.set("/huge", (_, res) => {
        res.setHeader("content-type", "text/html")
        res.end(`<html><body>${rows}</body></html>`)
      })
      // Count the workers started and the main-thread timer turns while they run.
      const Original = globalThis.Worker
      const started: Array<number> = []
      let ticks = 0
      let during = 0
      let workers = 0
      class Counting extends Original {
        constructor(...args: ConstructorParameters<typeof Worker>) {
          super(...args)
          workers++
          started.push(ticks)
          this.addEventListener("message", () => (during = ticks - started[0]!))
        }
      }
      globalThis.Worker = Counting as typeof Worker
      const timer = setInterval(() => ticks++, 0)
      const out = yield* fetchOk({ url: `${base}/huge` }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            clearInterval(timer)
            globalThis.Worker = Original
          }),
        ),
      )
      expect(out).toContain("row _19999_")
      expect(workers).toBe(1)
      // The main thread kept turning while the worker converted the page.
      expect(during).toBeGreaterThan(0)
    }),
  )
})
