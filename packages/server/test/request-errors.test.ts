import { Database } from "bun:sqlite"
import { afterEach, describe, expect, it, vi } from "vitest"
import { json, startTestServer, type TestServer } from "./support/server.ts"

const invalid = (field?: string) => ({
  _tag: "InvalidRequestError",
  message: expect.any(String),
  ...(field ? { field } : {}),
})

/** The server still answers normally after a bad request. */
const stillServes = async (server: TestServer) => {
  const { data } = await server.client.health()
  expect(data?.ok).toBe(true)
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("bad requests get typed 4xx bodies and the server keeps serving", () => {
  it("answers malformed JSON with 400 InvalidRequestError", async () => {
    const server = await startTestServer()
    const response = await server.fetch("/api/session", json("POST", "{not json"))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      _tag: "InvalidRequestError",
      message: "The request body is not valid JSON",
    })
    await stillServes(server)
  })

  it("names the field of a body with a wrong type", async () => {
    const server = await startTestServer()
    const session = (await server.client.session.create({ body: {} })).data!
    const cases: Array<[string, unknown, string]> = [
      ["/api/session", { title: 42 }, "title"],
      ["/api/session", { model: "no-slash" }, "model"],
      [`/api/session/${session.id}/prompt`, {}, "text"],
      [`/api/session/${session.id}/prompt`, { text: "   " }, "text"],
      [`/api/session/${session.id}/prompt`, { text: "hi", model: 3 }, "model"],
      [`/api/session/${session.id}/synthetic`, { text: "hi", resume: "yes" }, "resume"],
    ]
    for (const [path, body, field] of cases) {
      const response = await server.fetch(path, json("POST", body))
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400)
      const error = (await response.json()) as { message: string }
      expect(error).toEqual(invalid(field))
      expect(error.message).toContain(field)
    }
    const patch = await server.fetch(`/api/session/${session.id}`, json("PATCH", { title: ["x"] }))
    expect(await patch.json()).toEqual(invalid("title"))
    await stillServes(server)
  })

  it("names the query parameter that is out of range or of the wrong kind", async () => {
    const server = await startTestServer()
    const session = (await server.client.session.create({ body: {} })).data!
    for (const [path, field] of [
      ["/api/session?limit=0", "limit"],
      ["/api/session?limit=201", "limit"],
      ["/api/session?limit=ten", "limit"],
      [`/api/session/${session.id}/message?order=sideways`, "order"],
      [`/api/session/${session.id}/message?limit=1.5`, "limit"],
      [`/api/session/${session.id}/message?cursor=abc`, "cursor"],
    ] as const) {
      const response = await server.fetch(path)
      expect(response.status, path).toBe(400)
      expect(await response.json()).toEqual(invalid(field))
    }
    // The SDK surfaces the same typed body.
    const viaSdk = await server.client.session.list({ query: { limit: 500 } })
    expect(viaSdk.response?.status).toBe(400)
    expect(viaSdk.error).toEqual(invalid("limit"))
    await stillServes(server)
  })

  it("answers an unknown route or method with 404 NotFoundError", async () => {
    const server = await startTestServer()
    for (const [method, path] of [
      ["GET", "/api/nothing"],
      // `/` is the web client now; other unknown paths are still the API's 404.
      ["GET", "/nothing"],
      ["PUT", "/api/session"],
      ["POST", "/api/session/ses_x/nothing"],
    ] as const) {
      const response = await server.fetch(path, { method })
      expect(response.status, `${method} ${path}`).toBe(404)
      expect(response.headers.get("content-type")).toContain("application/json")
      expect(await response.json()).toEqual({
        _tag: "NotFoundError",
        message: expect.stringContaining(path.split("?")[0]!),
      })
    }
    await stillServes(server)
  })

  it("refuses a body over the limit with 413 before parsing it, declared or streamed", async () => {
    const server = await startTestServer({ bodyLimit: 1024 })
    const tooLarge = { _tag: "PayloadTooLargeError", message: expect.stringContaining("1024"), limit: 1024 }

    const declared = await server.fetch("/api/session", json("POST", { title: "x".repeat(2000) }))
    expect(declared.status).toBe(413)
    expect(await declared.json()).toEqual(tooLarge)

    // Not even valid JSON: the limit applies before anything parses the body.
    const garbage = await server.fetch("/api/session", json("POST", "{".repeat(5000)))
    expect(garbage.status).toBe(413)

    const chunks = [
      new TextEncoder().encode('{"title":"'),
      new TextEncoder().encode("y".repeat(4000)),
      new TextEncoder().encode('"}'),
    ]
    const streamed = await server.fetch("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          const chunk = chunks.shift()
          if (chunk) controller.enqueue(chunk)
          else controller.close()
        },
      }),
    })
    expect(streamed.status).toBe(413)
    expect(await streamed.json()).toEqual(tooLarge)

    // A small streamed body still works.
    const small = await server.fetch("/api/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"title":"streamed"}'))
          controller.close()
        },
      }),
    })
    expect(small.status).toBe(200)
    expect(await small.json()).toMatchObject({ title: "streamed" })

    // Through the SDK: the typed 413 body.
    const viaSdk = await server.client.session.create({ body: { title: "z".repeat(2000) } })
    expect(viaSdk.response?.status).toBe(413)
    expect(viaSdk.error).toEqual(tooLarge)
    await stillServes(server)
  })

  it("answers an unexpected failure with 500 UnknownError whose ref is logged, and no stack trace", async () => {
    const server = await startTestServer()
    const logged: Array<string> = []
    const capture = (...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    }
    vi.spyOn(console, "log").mockImplementation(capture)
    vi.spyOn(console, "error").mockImplementation(capture)
    // The host logs human lines on stderr.
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      capture(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))
      return true
    })
    // Break the storage underneath the running server: its next read fails unexpectedly.
    const db = new Database(server.database)
    db.run("ALTER TABLE session RENAME TO session_moved")
    try {
      const { response, error } = await server.client.session.list()
      expect(response?.status).toBe(500)
      expect(error).toEqual({
        _tag: "UnknownError",
        message: expect.stringContaining("ref"),
        ref: expect.stringMatching(/^err_/),
      })
      const body = JSON.stringify(error)
      expect(body).not.toContain("at ")
      expect(body).not.toContain("session_moved")
      const ref = (error as { ref: string }).ref
      expect(logged.some((line) => line.includes(ref))).toBe(true)
    } finally {
      db.run("ALTER TABLE session_moved RENAME TO session")
      db.close()
    }
    await stillServes(server)
    expect((await server.client.session.list()).response?.status).toBe(200)
  })
})
