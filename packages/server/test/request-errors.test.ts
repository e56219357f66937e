import { Database } from "bun:sqlite"
import { afterEach, describe, expect, it, vi } from "vitest"
import { realpathSync } from "node:fs"
import { seedTranscript } from "./support/routes.ts"
import { json, startTestServer, type TestServer } from "./support/server.ts"
import { tableHasher } from "./support/table-hash.ts"

const invalid = (field?: string) => ({
  _tag: "InvalidRequestError",
  message: expect.any(String),
  ...(field ? { field } : {}),
})

/** The server still answers normally after a bad request. */
const stillServes = async (server: TestServer) => {
  const { data } = await server.api.health.get()
  expect(data?.healthy).toBe(true)
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

  it("refuses a malformed body on operations that take none, changing nothing", async () => {
    const server = await startTestServer()
    const seeded = await seedTranscript(server)
    const S = `/api/session/${seeded.sessionID}`
    const tables = tableHasher(server.database)
    const before = tables.hash()
    const routes: Array<[string, string]> = [
      ["POST", `${S}/compact`],
      ["POST", `${S}/erase`],
      ["POST", `${S}/interrupt`],
      ["POST", `${S}/resume`],
      ["POST", `${S}/revert/clear`],
      ["POST", `${S}/revert/commit`],
      ["DELETE", `${S}/message/${seeded.messageID}`],
    ]
    for (const [method, path] of routes) {
      for (const body of ["{not json", "[1,2]", "42"]) {
        const response = await server.fetch(path, json(method, body))
        expect({ method, path, body, status: response.status }).toEqual({ method, path, body, status: 400 })
        expect(await response.json()).toEqual(invalid())
      }
    }
    expect(tables.hash()).toBe(before)
    // No body, or an empty object, is still what these operations take.
    expect((await server.fetch(`${S}/interrupt`, json("POST", "{}"))).status).toBeLessThan(300)
    expect((await server.fetch(`${S}/interrupt`, { method: "POST" })).status).toBeLessThan(300)
    await stillServes(server)
  })

  it("names the field of a body that does not decode, changing nothing", async () => {
    const server = await startTestServer()
    const session = (await server.api.session.create({})).data!.data
    const S = `/api/session/${session.id}`
    const seeded = await seedTranscript(server)
    const M = `/api/session/${seeded.sessionID}/message/${seeded.messageID}`
    const tables = tableHasher(server.database)
    const before = tables.hash()
    const cases: Array<[string, string, unknown, string]> = [
      ["POST", "/api/session", { title: 42 }, "title"],
      ["POST", "/api/session", { title: "   " }, "title"],
      ["POST", "/api/session", { id: 5 }, "id"],
      ["POST", "/api/session", { model: "offline/echo" }, "model"],
      ["POST", "/api/session", { model: { providerID: "offline" } }, "model.id"],
      ["POST", "/api/session", { location: "/tmp" }, "location"],
      ["POST", "/api/session", { location: { directory: 3 } }, "location.directory"],
      // A prompt is `{ prompt: { text } }`; the flat `{ text }` of earlier clients is refused by name.
      ["POST", `${S}/prompt`, {}, "prompt"],
      ["POST", `${S}/prompt`, { text: "hi" }, "prompt"],
      ["POST", `${S}/prompt`, { prompt: "hi" }, "prompt"],
      ["POST", `${S}/prompt`, { prompt: {} }, "prompt.text"],
      ["POST", `${S}/prompt`, { prompt: { text: 3 } }, "prompt.text"],
      ["POST", `${S}/prompt`, { prompt: { text: "   " } }, "prompt.text"],
      ["POST", `${S}/prompt`, { prompt: { text: "hi", files: [{}] } }, "prompt.files.0.uri"],
      ["POST", `${S}/prompt`, { prompt: { text: "hi" }, model: 3 }, "model"],
      ["POST", `${S}/prompt`, { prompt: { text: "hi" }, delivery: "later" }, "delivery"],
      ["POST", `${S}/prompt`, { prompt: { text: "hi" }, resume: "yes" }, "resume"],
      ["POST", `${S}/prompt`, { prompt: { text: "hi" }, id: 7 }, "id"],
      ["POST", `${S}/prompt`, { prompt: { text: "hi" }, id: "not-a-message-id" }, "id"],
      ["POST", `${S}/synthetic`, {}, "text"],
      ["POST", `${S}/synthetic`, { text: "hi", resume: "yes" }, "resume"],
      ["POST", `${S}/agent`, {}, "agent"],
      ["POST", `${S}/model`, { model: "offline/echo" }, "model"],
      ["POST", `${S}/prune`, { types: [] }, "types"],
      ["POST", `${S}/prune`, { types: ["text"] }, "types.0"],
      ["PATCH", S, { title: ["x"] }, "title"],
      ["PATCH", S, {}, "title"],
      ["PATCH", M, {}, "text"],
      ["PATCH", M, { text: 1 }, "text"],
      ["PATCH", M, { text: "x", itemID: 2 }, "itemID"],
      ["PATCH", M, { text: "" }, "text"],
      ["POST", `/api/session/${seeded.sessionID}/permission/${seeded.requestID}/reply`, { reply: "yes" }, "reply"],
    ]
    for (const [method, path, body, field] of cases) {
      const response = await server.fetch(path, json(method, body))
      const label = `${method} ${path} ${JSON.stringify(body)}`
      expect(response.status, label).toBe(400)
      const error = (await response.json()) as { message: string }
      expect(error, label).toEqual(invalid(field))
      expect(error.message, label).toContain(field)
    }
    // Through the SDK the body is the same typed error.
    const viaSdk = await server.api.session.prompt({ sessionID: session.id, prompt: { text: 3 as unknown as string } })
    expect(viaSdk.response?.status).toBe(400)
    expect(viaSdk.error).toEqual(invalid("prompt.text"))
    expect(tables.hash()).toBe(before)
    tables.close()
    await stillServes(server)
  })

  it("reads a missing body as the empty object: defaults where every field is optional, the field otherwise", async () => {
    const server = await startTestServer()
    // `session.create()` sends no body at all (nor does upstream's client when no field is set).
    const created = await server.api.session.create()
    expect(created.response?.status).toBe(200)
    expect(created.data!.data.location.directory).toBe(realpathSync(server.directory))
    const sessionID = created.data!.data.id
    const pruned = await server.api.session.prune({ sessionID })
    expect(pruned.response?.status).toBe(200)
    expect(pruned.data!.data).toMatchObject({ sessionID, messages: 0, items: 0 })
    const variants: Array<Record<string, string>> = [
      {},
      { "content-type": "application/json" },
      { "content-length": "0" },
    ]
    for (const headers of variants) {
      const raw = await server.fetch("/api/session", { method: "POST", headers })
      expect(raw.status, JSON.stringify(headers)).toBe(200)
      const prompt = await server.fetch(`/api/session/${sessionID}/prompt`, { method: "POST", headers })
      expect(prompt.status, JSON.stringify(headers)).toBe(400)
      expect(await prompt.json()).toEqual(invalid("prompt"))
    }
    expect((await server.api.session.messages({ sessionID })).data!.data).toEqual([])
    await stillServes(server)
  })

  it("names the query parameter that is out of range or of the wrong kind", async () => {
    const server = await startTestServer()
    const session = (await server.api.session.create({})).data!.data
    for (const [path, field] of [
      ["/api/session?limit=0", "limit"],
      ["/api/session?limit=201", "limit"],
      ["/api/session?limit=ten", "limit"],
      ["/api/session?order=sideways", "order"],
      [`/api/session/${session.id}/message?order=sideways`, "order"],
      [`/api/session/${session.id}/message?limit=1.5`, "limit"],
      [`/api/session/${session.id}/history?after=-1`, "after"],
      [`/api/session/${session.id}/history?limit=0`, "limit"],
      [`/api/session/${session.id}/history?limit=1001`, "limit"],
    ] as const) {
      const response = await server.fetch(path)
      expect(response.status, path).toBe(400)
      expect(await response.json()).toEqual(invalid(field))
    }
    // A cursor that does not decode is upstream's InvalidCursorError.
    for (const path of ["/api/session?cursor=abc", `/api/session/${session.id}/message?cursor=abc`]) {
      const response = await server.fetch(path)
      expect(response.status, path).toBe(400)
      expect(await response.json()).toEqual({ _tag: "InvalidCursorError", message: expect.any(String) })
    }
    // The SDK surfaces the same typed body.
    const viaSdk = await server.api.session.list({ limit: 500 })
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
    expect(await small.json()).toMatchObject({ data: { title: "streamed" } })

    // Through the SDK: the typed 413 body.
    const viaSdk = await server.api.session.create({ title: "z".repeat(2000) })
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
      const { response, error } = await server.api.session.list()
      expect(response?.status).toBe(500)
      const ref = expect.stringMatching(/^err_/)
      const message = expect.stringContaining("ref")
      expect(error).toEqual({ _tag: "UnknownError", message, ref, name: "UnknownError", data: { message, ref } })
      const body = JSON.stringify(error)
      expect(body).not.toContain("at ")
      expect(body).not.toContain("session_moved")
      const logRef = (error as { ref: string }).ref
      expect(logged.some((line) => line.includes(logRef))).toBe(true)
    } finally {
      db.run("ALTER TABLE session_moved RENAME TO session")
      db.close()
    }
    await stillServes(server)
    expect((await server.api.session.list()).response?.status).toBe(200)
  })
})
