import { createOpencodeClient, EventStreamError, subscribe } from "@opencode-ai/sdk/v2"
import { describe, expect, it } from "vitest"
import { isLoopback, ServerConfigError, startServer } from "../src/server.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

const unauthorized = { _tag: "UnauthorizedError", message: expect.stringContaining("opencode") }
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

describe("basic authentication", () => {
  it("answers 401 UnauthorizedError without or with wrong credentials, on every kind of route", async () => {
    const server = await startTestServer({ password: "s3cret" })
    for (const path of ["/api/health", "/api/session", "/api/event", "/openapi.json", "/api/nothing"]) {
      const response = await server.fetch(path)
      expect(response.status, path).toBe(401)
      expect(response.headers.get("www-authenticate")).toContain("Basic")
      expect(await response.json()).toEqual(unauthorized)
    }
    const wrongPassword = await server.fetch("/api/health", { headers: { authorization: basic("opencode", "nope") } })
    expect(wrongPassword.status).toBe(401)
    const wrongUser = await server.fetch("/api/health", { headers: { authorization: basic("admin", "s3cret") } })
    expect(wrongUser.status).toBe(401)

    const anonymous = createOpencodeClient({ baseUrl: server.url })
    const result = await anonymous.v2.session.create({})
    expect(result.response?.status).toBe(401)
    expect(result.error).toEqual(unauthorized)
    const failure = await subscribe(anonymous).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(EventStreamError)
    expect(failure).toMatchObject({ status: 401, error: unauthorized })
    const wrong = createOpencodeClient({ baseUrl: server.url, password: "wrong" })
    expect((await wrong.v2.health.get()).response?.status).toBe(401)
  })

  it("serves everything with the right credentials", async () => {
    const server = await startTestServer({ password: "pässwörd:with:colons" })
    const { client, api } = server
    expect((await api.health.get()).data?.healthy).toBe(true)
    const session = (await api.session.create({ title: "authed" })).data!.data
    expect(session.title).toBe("authed")
    const events = await subscribe(client, { sessionID: session.id })
    expect((await events[Symbol.asyncIterator]().next()).value).toMatchObject({ type: "server.connected" })
    events.close()
    const openapi = await server.fetch("/openapi.json", {
      headers: { authorization: basic("opencode", "pässwörd:with:colons") },
    })
    expect(openapi.status).toBe(200)
  })

  it("refuses to listen on a non-loopback address without a password", async () => {
    const directory = tempDir()
    await expect(
      startServer({
        hostname: "0.0.0.0",
        port: 0,
        database: `${directory}/db.sqlite`,
        config: { data: {}, directory },
      }),
    ).rejects.toThrow(ServerConfigError)
    await expect(
      startServer({
        hostname: "192.168.1.10",
        port: 0,
        database: `${directory}/db.sqlite`,
        config: { data: {}, directory },
      }),
    ).rejects.toThrow(/OPENCODE_SERVER_PASSWORD/)
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].every(isLoopback)).toBe(true)
    expect(["0.0.0.0", "10.0.0.1", "::", "example.com"].some(isLoopback)).toBe(false)
  })
})

describe("CORS", () => {
  it("is off by default: no CORS headers", async () => {
    const server = await startTestServer()
    const response = await server.fetch("/api/health", { headers: { origin: "http://app.example" } })
    expect(response.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("answers preflights and marks responses for configured origins only, before auth", async () => {
    const server = await startTestServer({ cors: ["http://app.example"], password: "pw" })
    const preflight = await server.fetch("/api/session", {
      method: "OPTIONS",
      headers: {
        origin: "http://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://app.example")
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PATCH")
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization")

    const allowed = await server.fetch("/api/health", {
      headers: { origin: "http://app.example", authorization: basic("opencode", "pw") },
    })
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://app.example")
    // Errors carry the header too, so the browser can read the typed body.
    const denied = await server.fetch("/api/health", { headers: { origin: "http://app.example" } })
    expect(denied.status).toBe(401)
    expect(denied.headers.get("access-control-allow-origin")).toBe("http://app.example")

    const other = await server.fetch("/api/health", {
      headers: { origin: "http://evil.example", authorization: basic("opencode", "pw") },
    })
    expect(other.headers.get("access-control-allow-origin")).toBeNull()
    const otherPreflight = await server.fetch("/api/session", {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
    })
    expect(otherPreflight.headers.get("access-control-allow-origin")).toBeNull()
  })
})
