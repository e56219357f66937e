/**
 * The cross-site request rule, against a real server on loopback with a real database file. A web page
 * can make the browser send a state-changing request without a preflight (`fetch` with `no-cors`,
 * `navigator.sendBeacon`): no body or a `text/plain` one, and always an `Origin` header (plus
 * `Sec-Fetch-Site: cross-site`). Every state-changing route of the OpenAPI document is tried that way and
 * must answer 403 `ForbiddenError` with nothing changed (a hash over every table); requests without an
 * Origin (CLI, SDK) and from the server's own origin (its web client) keep working, and so do reads.
 */
import { describe, expect, it } from "vitest"
import { documentedRoutes, fill, seedTranscript } from "./support/routes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { tableHasher } from "./support/table-hash.ts"

const SAFE = new Set(["GET", "HEAD", "OPTIONS"])
const forbidden = { _tag: "ForbiddenError", message: expect.stringContaining("cross-site") }
const basic = (password: string) => `Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`

/** A body that would be accepted by every route that reads one, so a refusal is the rule's, not the payload's. */
const BODY = JSON.stringify({
  prompt: { text: "sent from a foreign page" },
  text: "sent from a foreign page",
  title: "sent from a foreign page",
  reply: "once",
})

/** Every documented route that changes state, as method and concrete path. */
const changingRoutes = (ids: Record<string, string>) =>
  documentedRoutes()
    .filter((route) => !SAFE.has(route.method))
    .map((route) => ({ method: route.method, path: fill(route.template, ids), body: route.body }))

/** The foreign shapes a browser can send without a preflight, each with the headers it carries. */
const foreignShapes = (server: TestServer): ReadonlyArray<{ name: string; headers: Record<string, string> }> => [
  { name: "foreign Origin", headers: { origin: "http://evil.example" } },
  {
    name: "foreign Origin, Sec-Fetch-Site cross-site",
    headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
  },
  { name: "Sec-Fetch-Site cross-site without Origin", headers: { "sec-fetch-site": "cross-site" } },
  { name: "Origin null (sandboxed frame, file: page)", headers: { origin: "null" } },
  // Another port on the same host is another origin (a dev server, any other local page).
  { name: "same host, other port", headers: { origin: `http://127.0.0.1:${server.server.port + 1}` } },
  // The server's own origin, but the browser says the page that sent it is on another site.
  { name: "own Origin, Sec-Fetch-Site cross-site", headers: { origin: server.url, "sec-fetch-site": "cross-site" } },
]

describe("cross-site requests", () => {
  it("refuses every state-changing route from a foreign page with 403 ForbiddenError, changing nothing", async () => {
    const server = await startTestServer({ config: { events: { persist: true } } })
    const ids = await seedTranscript(server, "before the attack")
    const tables = tableHasher(server.database)
    const before = tables.hash()
    const routes = changingRoutes(ids)
    // The routes of the report are among them (the list is read from the document, so new ones join).
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(
        ["compact", "resume", "interrupt", "erase", "prompt"].map(
          (name) => `POST /api/session/${ids.sessionID}/${name}`,
        ),
      ),
    )
    const failures: Array<string> = []
    for (const route of routes) {
      for (const shape of foreignShapes(server)) {
        // As `fetch(..., { mode: "no-cors" })` / `sendBeacon` send them: no body, or a text/plain one.
        for (const body of [undefined, BODY]) {
          const headers: Record<string, string> = { ...shape.headers }
          if (body !== undefined) headers["content-type"] = route.body ? "text/plain;charset=UTF-8" : "text/plain"
          const response = await server.fetch(route.path, {
            method: route.method,
            headers,
            ...(body !== undefined ? { body } : {}),
          })
          const label = `${route.method} ${route.path} (${shape.name}, ${body === undefined ? "no body" : "text/plain body"})`
          const text = await response.text()
          if (response.status !== 403) failures.push(`${label}: ${response.status} ${text.slice(0, 120)}`)
          else if (!(response.headers.get("content-type") ?? "").includes("application/json"))
            failures.push(`${label}: 403 without a JSON body`)
          else expect(JSON.parse(text), label).toEqual(forbidden)
        }
        // A JSON body would be preflighted by a browser, but the rule does not depend on that.
        const json = await server.fetch(route.path, {
          method: route.method,
          headers: { ...shape.headers, "content-type": "application/json" },
          body: BODY,
        })
        if (json.status !== 403) failures.push(`${route.method} ${route.path} (${shape.name}, JSON): ${json.status}`)
        await json.body?.cancel()
      }
    }
    expect(failures).toEqual([])
    expect(tables.hash()).toBe(before)
    tables.close()
  })

  it("serves requests without an Origin and from the server's own origin, and reads from anywhere", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server, "first")
    // No Origin: the CLI and the SDK under Node. The no-body resume of the report runs a turn.
    const resumed = await server.fetch(`/api/session/${ids.sessionID}/resume`, { method: "POST" })
    expect(resumed.status).toBe(200)
    expect(await resumed.json()).toEqual({ data: { resumed: true } })
    await server.api.session.wait({ sessionID: ids.sessionID })

    // The web client the server serves itself: its Origin is the server's, as the browser sends it.
    const sameOrigin: ReadonlyArray<Record<string, string>> = [
      { origin: server.url },
      { origin: server.url, "sec-fetch-site": "same-origin" },
      { origin: `http://localhost:${server.server.port}`, host: `localhost:${server.server.port}` },
    ]
    for (const headers of sameOrigin) {
      const prompted = await server.fetch(`/api/session/${ids.sessionID}/prompt`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ prompt: { text: `same origin ${JSON.stringify(headers)}` } }),
      })
      expect(prompted.status, JSON.stringify(headers)).toBe(200)
      const { id: messageID } = ((await prompted.json()) as { data: { id: string } }).data
      await server.api.session.wait({ sessionID: ids.sessionID })
      expect((await server.api.session.message({ sessionID: ids.sessionID, messageID })).data?.data.id).toBe(messageID)
    }
    // Sec-Fetch-Site same-site or none, without a foreign Origin, is not refused.
    const compact = await server.fetch(`/api/session/${ids.sessionID}/compact`, {
      method: "POST",
      headers: { "sec-fetch-site": "none" },
    })
    expect(compact.status).toBe(204)
    await server.api.session.wait({ sessionID: ids.sessionID })

    // Reads are left to the Host and CORS rules: a GET from a foreign page is answered (the browser
    // does not let that page read it).
    for (const path of ["/api/session", `/api/session/${ids.sessionID}/message`, "/api/health"]) {
      const read = await server.fetch(path, {
        headers: { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
      })
      expect(read.status, path).toBe(200)
      await read.body?.cancel()
    }
  })

  it("applies with a password too: the right credentials from a foreign page are still refused", async () => {
    const server = await startTestServer({ password: "s3cret" })
    const session = (await server.api.session.create({ title: "guarded" })).data!.data
    const foreign = await server.fetch(`/api/session/${session.id}/resume`, {
      method: "POST",
      headers: { authorization: basic("s3cret"), origin: "http://evil.example" },
    })
    expect(foreign.status).toBe(403)
    expect(await foreign.json()).toEqual(forbidden)
    // Refused before authentication: a foreign page learns nothing about the credentials either.
    const anonymous = await server.fetch(`/api/session/${session.id}/resume`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
    })
    expect(anonymous.status).toBe(403)
    const own = await server.fetch(`/api/session/${session.id}/resume`, {
      method: "POST",
      headers: { authorization: basic("s3cret"), origin: server.url },
    })
    expect(own.status).toBe(200)
    await own.body?.cancel()
    await server.api.session.wait({ sessionID: session.id })
  })

  it("serves origins allowed for CORS, which are cross-site by definition", async () => {
    const server = await startTestServer({ cors: ["http://app.example"] })
    const session = (await server.api.session.create({ title: "cors" })).data!.data
    const allowed = await server.fetch(`/api/session/${session.id}/prompt`, {
      method: "POST",
      headers: { origin: "http://app.example", "sec-fetch-site": "cross-site", "content-type": "application/json" },
      body: JSON.stringify({ prompt: { text: "from the allowed app" } }),
    })
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://app.example")
    await allowed.body?.cancel()
    await server.api.session.wait({ sessionID: session.id })
    for (const origin of ["http://other.example", "null", "http://app.example.evil.example"]) {
      const refused = await server.fetch(`/api/session/${session.id}/prompt`, {
        method: "POST",
        headers: { origin, "content-type": "application/json" },
        body: JSON.stringify({ prompt: { text: "from elsewhere" } }),
      })
      expect(refused.status, origin).toBe(403)
      expect(await refused.json()).toEqual(forbidden)
    }
    // `"*"` allows every origin to call, except `null`, which names none.
    const open = await startTestServer({ cors: "*" })
    const other = (await open.api.session.create()).data!.data
    const any = await open.fetch(`/api/session/${other.id}/resume`, {
      method: "POST",
      headers: { origin: "http://anywhere.example" },
    })
    expect(any.status).toBe(200)
    await any.body?.cancel()
    await open.api.session.wait({ sessionID: other.id })
    const nullOrigin = await open.fetch(`/api/session/${other.id}/resume`, {
      method: "POST",
      headers: { origin: "null" },
    })
    expect(nullOrigin.status).toBe(403)
    await nullOrigin.body?.cancel()
  })
})
