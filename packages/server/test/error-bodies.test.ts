import { describe, expect, it } from "vitest"
import { ensureJsonError } from "../src/http/json-errors.ts"
import { message, rawRequest } from "./support/raw-http.ts"
import { seedTranscript } from "./support/routes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

const unsupported = { _tag: "UnsupportedMediaTypeError", message: expect.stringMatching(/Content-Type/i) }

const snapshot = async (server: TestServer) => {
  const sessions = (await server.api.session.list({ limit: 200 })).data!.data
  const transcripts = await Promise.all(
    sessions.map(async (s) => (await server.api.session.messages({ sessionID: s.id, limit: 200 })).data),
  )
  return JSON.stringify({ sessions, transcripts })
}

describe("every non-2xx carries a JSON body with _tag and message", () => {
  it("answers a body that is not declared JSON with 415 UnsupportedMediaTypeError, before reading it", async () => {
    const server = await startTestServer()
    const { sessionID: S, messageID: M, assistantID: A, itemID: I } = await seedTranscript(server)
    const before = await snapshot(server)
    const cases: Array<[string, string, Record<string, string>, string]> = [
      ["POST", "/api/session", {}, "{}"],
      ["POST", "/api/session", { "content-type": "" }, "{}"],
      ["POST", "/api/session", { "content-type": "text/plain" }, '{"title":"x"}'],
      ["POST", "/api/session", { "content-type": "application/x-www-form-urlencoded" }, "title=x"],
      ["POST", `/api/session/${S}/prompt`, { "content-type": "multipart/form-data; boundary=z" }, "--z--"],
      ["PATCH", `/api/session/${S}/message/${M}`, { "content-type": "text/html" }, '{"text":"x"}'],
      ["PATCH", `/api/session/${S}/message/${A}`, { "content-type": "text/plain" }, `{"text":"x","itemID":"${I}"}`],
      ["DELETE", `/api/session/${S}/message/${A}/item/${I}`, { "content-type": "text/plain" }, "remove"],
      ["PATCH", `/api/session/${S}`, { "content-type": "application/jsonx" }, '{"title":"x"}'],
      ["POST", `/api/session/${S}/interrupt`, { "content-type": "text/plain" }, "stop"],
      ["DELETE", `/api/session/${S}`, { "content-type": "text/plain" }, "please"],
      // A Content-Type on a method with a body, even without one.
      ["POST", `/api/session/${S}/prune`, { "content-type": "text/plain" }, ""],
    ]
    for (const [method, path, headers, body] of cases) {
      const response = await server.fetch(path, { method, headers, ...(body ? { body } : {}) })
      expect(response.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(415)
      expect(response.headers.get("content-type")).toContain("application/json")
      expect(await response.json()).toEqual(unsupported)
    }
    // The refused requests changed nothing.
    expect(await snapshot(server)).toBe(before)
    // JSON with parameters is accepted.
    const charset = await server.fetch("/api/session", {
      method: "POST",
      headers: { "content-type": "Application/JSON; charset=utf-8" },
      body: '{"title":"ok"}',
    })
    expect(charset.status).toBe(200)
  })

  it("answers a declared length over the runtime's own limit with a JSON 413, not an empty one", async () => {
    const server = await startTestServer()
    for (const length of ["200000000", "9007199254740991"]) {
      const response = await rawRequest(
        server.url,
        message("POST", "/api/session", {
          host: "127.0.0.1",
          "content-type": "application/json",
          "content-length": length,
        }),
      )
      expect(response.status, length).toBe(413)
      expect(JSON.parse(response.body)).toMatchObject({ _tag: "PayloadTooLargeError", limit: 1024 * 1024 })
    }
    expect((await server.api.session.list()).data!.data).toEqual([])
  })

  it("answers a refused CORS preflight with 403 ForbiddenError", async () => {
    const server = await startTestServer({ cors: ["http://app.example"] })
    const refused = await server.fetch("/api/session", {
      method: "OPTIONS",
      headers: { origin: "http://other.example", "access-control-request-method": "POST" },
    })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      _tag: "ForbiddenError",
      message: expect.stringContaining("http://other.example"),
    })
    const allowed = await server.fetch("/api/session", {
      method: "OPTIONS",
      headers: { origin: "http://app.example", "access-control-request-method": "POST" },
    })
    expect(allowed.status).toBe(204)
  })

  it("gives a bare error the framework answered by itself the tagged body of its status", async () => {
    const request = new Request("http://127.0.0.1/api/session", { method: "POST" })
    const cases: Array<[number, string]> = [
      [415, "UnsupportedMediaTypeError"],
      [413, "PayloadTooLargeError"],
      [405, "NotFoundError"],
      [400, "InvalidRequestError"],
      [503, "UnknownError"],
    ]
    for (const [status, tag] of cases) {
      const fixed = await ensureJsonError(
        request,
        new Response("bare text", { status, headers: { "content-type": "text/plain", "x-keep": "1" } }),
        10,
      )
      expect(fixed.status).toBe(status)
      expect(fixed.headers.get("x-keep")).toBe("1")
      expect(await fixed.json()).toMatchObject({ _tag: tag, message: expect.any(String) })
    }
    const ok = new Response("fine", { status: 200 })
    expect(await ensureJsonError(request, ok, 10)).toBe(ok)
  })
})
