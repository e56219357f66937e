import { describe, expect, it } from "vitest"
import { hostName, isLoopbackHost, makeHostRule } from "../src/http/host.ts"
import { message, rawRequest } from "./support/raw-http.ts"
import { documentedRoutes, fill, seedTranscript } from "./support/routes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

const forbidden = { _tag: "ForbiddenError", message: expect.stringContaining("allowedHosts") }
const basic = (password: string) => `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`

/** Every documented route, the static client (`/`, an asset) and an unknown path, as [method, path]. */
const everyRoute = (ids: Record<string, string>) => [
  ...documentedRoutes().map((route) => [route.method, fill(route.template, ids), route.body] as const),
  ["GET", "/", false] as const,
  ["GET", "/session/ses_0", false] as const,
  ["GET", "/assets/app.js", false] as const,
  ["GET", "/openapi.json", false] as const,
  ["GET", "/api/nothing", false] as const,
  ["OPTIONS", "/api/session", false] as const,
]

const send = (server: TestServer, method: string, path: string, body: boolean, headers: Record<string, string>) =>
  server.fetch(path, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: "{}" } : {}),
  })

const sessionCount = async (server: TestServer) => (await server.api.session.list({ limit: 200 })).data!.data.length

describe("the Host rule (DNS-rebinding defence) without a password", () => {
  it("answers 403 ForbiddenError to Host: evil.example on every route, streams included, and changes nothing", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const before = await sessionCount(server)
    const routes = everyRoute(ids)
    expect(routes.some(([, path]) => path === "/api/event")).toBe(true)
    expect(routes.some(([, path]) => path.endsWith(`/session/${ids.sessionID}/event`))).toBe(true)
    for (const [method, path, body] of routes) {
      const response = await send(server, method, path, body, { host: "evil.example" })
      expect(response.status, `${method} ${path}`).toBe(403)
      expect(response.headers.get("content-type"), `${method} ${path}`).toContain("application/json")
      expect(await response.json(), `${method} ${path}`).toEqual(forbidden)
    }
    // The same refusal for rebinding names that merely contain a loopback name, and with a port.
    for (const host of [
      "evil.example:4096",
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "127.0.0.256",
      "[::2]",
      "0.0.0.0",
    ]) {
      const response = await send(server, "GET", "/api/health", false, { host })
      expect(response.status, host).toBe(403)
      expect(await response.json()).toEqual(forbidden)
    }
    // A CORS preflight from the rebinding page is refused the same way, before anything else answers.
    const preflight = await send(server, "OPTIONS", "/api/session", false, {
      host: "evil.example",
      origin: "http://evil.example",
      "access-control-request-method": "POST",
    })
    expect(preflight.status).toBe(403)
    expect(await preflight.json()).toEqual(forbidden)
    // Nothing was created, deleted or changed by the refused requests.
    expect(await sessionCount(server)).toBe(before)
    expect(
      (await server.api.session.message({ sessionID: ids.sessionID, messageID: ids.messageID })).data?.data.id,
    ).toBe(ids.messageID)
  })

  it("refuses a request without a Host header", async () => {
    const server = await startTestServer()
    // HTTP/1.0 may omit Host; HTTP/1.1 without one is refused by the runtime's parser before any code runs.
    const response = await rawRequest(server.url, "GET /api/health HTTP/1.0\r\n\r\n")
    expect(response.status).toBe(403)
    expect(JSON.parse(response.body)).toEqual(forbidden)
  })

  it("answers HEAD with the refusal's headers and its body's length, without the body", async () => {
    const server = await startTestServer()
    const get = await rawRequest(server.url, message("GET", "/api/session", { host: "evil.example" }))
    const head = await rawRequest(server.url, message("HEAD", "/api/session", { host: "evil.example" }))
    expect(head.status).toBe(403)
    expect(head.body).toBe("")
    expect(head.headers["content-type"]).toBe(get.headers["content-type"])
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(get.body)))
  })

  it("serves loopback names and addresses with any port", async () => {
    const server = await startTestServer()
    for (const host of [
      "localhost",
      "LOCALHOST:4096",
      "127.0.0.1",
      "127.1.2.3:80",
      "[::1]",
      "[::1]:4096",
      `127.0.0.1:${server.server.port}`,
    ]) {
      const response = await send(server, "GET", "/api/health", false, { host })
      expect(response.status, host).toBe(200)
    }
    const raw = await rawRequest(server.url, message("GET", "/api/health", { host: "localhost" }))
    expect(raw.status).toBe(200)
  })

  it("serves the names in server.allowedHosts, on every route including the event stream", async () => {
    const server = await startTestServer({ config: { server: { allowedHosts: ["Evil.Example"] } } })
    const ids = await seedTranscript(server)
    for (const [method, path, body] of everyRoute(ids)) {
      const response = await send(server, method, path, body, { host: "evil.example:4096" })
      const text = response.headers.get("content-type")?.includes("event-stream") ? "" : await response.text()
      await response.body?.cancel().catch(() => undefined)
      expect(response.status, `${method} ${path} ${text}`).not.toBe(403)
      if (response.status >= 400) expect(JSON.parse(text)._tag, `${method} ${path}`).not.toBe("ForbiddenError")
    }
    const health = await send(server, "GET", "/api/health", false, { host: "evil.example" })
    expect(await health.json()).toMatchObject({ healthy: true })
    const events = await send(server, "GET", "/api/event", false, { host: "evil.example" })
    expect(events.status).toBe(200)
    expect(events.headers.get("content-type")).toContain("text/event-stream")
    await events.body?.cancel()
    // Only the listed name: another one is still refused.
    expect((await send(server, "GET", "/api/health", false, { host: "other.example" })).status).toBe(403)
  })

  it("takes allowedHosts from the server options over the config", async () => {
    const server = await startTestServer({
      allowedHosts: ["dev.internal"],
      config: { server: { allowedHosts: ["evil.example"] } },
    })
    expect((await send(server, "GET", "/api/health", false, { host: "dev.internal:8080" })).status).toBe(200)
    expect((await send(server, "GET", "/api/health", false, { host: "evil.example" })).status).toBe(403)
  })
})

describe("the Host rule with a password", () => {
  it("serves any Host after authentication, and answers 401 (not 403) without it", async () => {
    const server = await startTestServer({ password: "pw" })
    const authed = await send(server, "GET", "/api/health", false, { host: "evil.example", authorization: basic("pw") })
    expect(authed.status).toBe(200)
    const anonymous = await send(server, "GET", "/api/health", false, { host: "evil.example" })
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ _tag: "UnauthorizedError" })
  })
})

describe("host names", () => {
  it("parses Host values and recognises loopback only", () => {
    expect(hostName("LocalHost:80")).toBe("localhost")
    expect(hostName("[::1]:4096")).toBe("[::1]")
    expect(hostName("[::1]x")).toBeUndefined()
    expect(hostName("a b")).toBeUndefined()
    expect(hostName("evil.example:http")).toBeUndefined()
    expect(["localhost", "127.0.0.1", "127.255.255.255", "[::1]"].every(isLoopbackHost)).toBe(true)
    expect(["127.0.0.01", "127.0.0", "128.0.0.1", "[::]", "localhost.", "::1"].some(isLoopbackHost)).toBe(false)
    const rule = makeHostRule({ password: undefined, allowedHosts: ["Box.Lan:8080"] })
    expect(rule.allows("box.lan")).toBe(true)
    expect(rule.allows(null)).toBe(false)
    expect(makeHostRule({ password: "x" }).allows("anything")).toBe(true)
  })
})
