/**
 * A seeded, bounded fuzz of the HTTP front door: a few thousand requests over every documented route
 * (read from the OpenAPI document) with malformed ids, bodies, content-types, query strings and headers,
 * some sent through `fetch` and some as raw bytes (unnormalised paths). Against a real server on
 * loopback with a real database file it checks that
 * - no response is a 5xx,
 * - every non-2xx carries a JSON body with a string `_tag` and `message`,
 * - a refused request changes nothing: a hash over every table is the same before and after it.
 * `FUZZ_SEED` and `FUZZ_COUNT` override the seed and the number of requests.
 *
 * Out of scope: bytes the runtime's HTTP parser refuses before any application code runs (a malformed
 * `Content-Length`, an unparsable header line); see docs/server-hardening.md.
 */
import { describe, expect, it } from "vitest"
import { rawRequest } from "./support/raw-http.ts"
import { documentedRoutes, fill, type Ids, type RouteCase, seedTranscript } from "./support/routes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"
import { tableHasher } from "./support/table-hash.ts"
import { before } from "./support/deadline.ts"

const SEED = Number(process.env.FUZZ_SEED ?? 20261129)
const COUNT = Number(process.env.FUZZ_COUNT ?? 2000)

/** mulberry32: small, fast, good enough to pick cases reproducibly. */
const prng = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Random = ReturnType<typeof prng>
const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
const chance = (random: Random, p: number) => random() < p

/** Values for the rest of a path (`fs.read`'s file): confinement is the file rules' job. */
const restValue = (random: Random): string =>
  pick(random, [
    "missing.txt",
    "opencode.db",
    "../../etc/passwd",
    "%2e%2e/%2e%2e/etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "/etc/passwd",
    "%00",
    "a%5Cb",
    "x".repeat(600),
  ])

const idValue = (random: Random, name: string, ids: Ids): string => {
  if (name === "*") return restValue(random)
  const valid = ids[name] ?? "x"
  const prefix = valid.split("_")[0] ?? "ses"
  return pick(random, [
    valid,
    valid,
    `${prefix}_0000000000000000000000000`,
    `${prefix}_${"Z".repeat(64)}`,
    `${prefix}_${"Z".repeat(65)}`,
    `${prefix}_`,
    ids.sessionID,
    ids.messageID,
    ids.assistantID,
    ids.itemID,
    ids.requestID,
    "..",
    ".",
    "%2e%2e",
    "%2E",
    ".%2e",
    "%252e%252e",
    "%00",
    "%zz",
    "%",
    "a%2Fb",
    "a%5Cb",
    "ses_a-b",
    "null",
    "undefined",
    "%F0%9F%92%A9",
    "x".repeat(600),
    `${valid}%20`,
    `${valid};x=1`,
  ])
}

const QUERIES = [
  "",
  "",
  "",
  "?limit=1",
  "?limit=0",
  "?limit=-5",
  "?limit=201",
  "?limit=1e3",
  "?limit=abc",
  "?limit=",
  "?cursor=abc",
  "?cursor=",
  "?cursor=99999999999999999999",
  "?order=sideways",
  "?order=desc",
  "?after=-1",
  "?after=abc",
  "?after=1e400",
  "?after=99999999999999999999",
  "?sessionID=..",
  "?sessionID=ses_0000000000000000000000000",
  "?sessionID=",
  "?directory=/definitely/missing",
  "?directory=relative",
  "?location[directory]=/etc/passwd",
  "?location%5Bdirectory%5D=%00",
  "?location[directory]=",
  "?search=%25%5F",
  "?query=*&limit=1",
  "?query=",
  "?type=bogus",
  "?path=../..",
  "?path=/etc",
  "?%zz=1",
  "?limit=1&limit=2",
  "?a=%00",
]

const CONTENT_TYPES = [
  undefined,
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "application/json; charset=latin1",
  "",
  "*/*",
  "application/json;;;",
]

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

const BODIES = (random: Random): string | undefined =>
  pick(random, [
    undefined,
    "{}",
    "{}",
    '{"prompt":{"text":"hello"}}',
    '{"prompt":{"text":"   "}}',
    '{"prompt":{"text":42}}',
    '{"prompt":"hello"}',
    '{"text":"hello"}',
    '{"text":"   "}',
    '{"text":42}',
    '{"prompt":{"text":"x"},"model":{"providerID":"nope","id":"x"}}',
    '{"prompt":{"text":"x"},"model":"offline/echo"}',
    '{"prompt":{"text":"x"},"model":{"providerID":"offline","id":"echo"},"agent":"build"}',
    '{"prompt":{"text":"x"},"delivery":"steer"}',
    '{"prompt":{"text":"x"},"delivery":"later"}',
    '{"prompt":{"text":"x"},"id":"msg_fuzzChosen1"}',
    '{"prompt":{"text":"x"},"id":"../x"}',
    '{"prompt":{"text":"x","files":[{"uri":"file:///etc/passwd"}]}}',
    '{"prompt":{"text":"x","files":[{"uri":"file://../../etc/passwd"}]}}',
    '{"prompt":{"text":"x","files":[{}]}}',
    '{"title":"fuzz"}',
    '{"title":["x"]}',
    '{"title":null}',
    '{"id":"ses_fuzzChosen1"}',
    '{"id":"nope"}',
    '{"location":{"directory":"/definitely/missing"}}',
    '{"location":{"directory":"relative"}}',
    '{"location":{"directory":"/etc/passwd"}}',
    '{"location":{}}',
    '{"directory":"/definitely/missing"}',
    '{"agent":"ghost"}',
    '{"agent":"build"}',
    '{"model":{"providerID":"offline","id":"echo"}}',
    '{"model":{"providerID":"offline"}}',
    '{"itemID":"prt_0000000000000000000000000","text":"x"}',
    '{"itemID":"..","text":"x"}',
    '{"types":[]}',
    '{"types":["tool","bogus"]}',
    '{"types":["reasoning"]}',
    '{"resume":"yes"}',
    '{"reply":"always"}',
    '{"reply":"once","message":"x"}',
    '{"reply":"sometimes"}',
    "{not json",
    "[]",
    "null",
    "0",
    '"string"',
    "\u0000",
    "\uFEFF{}",
    deep(64),
    deep(5000),
    `{"text":"${"a".repeat(2000)}"}`,
    `{"title":"${"b".repeat(1024 * 1024 + 10)}"}`,
    JSON.stringify({ text: "x", extra: { nested: [1, 2, { a: null }] } }),
    '{"__proto__":{"polluted":true},"text":"x"}',
  ])

const EXTRA_HEADERS: ReadonlyArray<Record<string, string>> = [
  {},
  {},
  {},
  { accept: "text/html" },
  { accept: "text/event-stream" },
  { authorization: "Basic !!!" },
  { authorization: "Bearer x" },
  { origin: "http://evil.example" },
  { "last-event-id": "abc" },
  { "last-event-id": "-1" },
  { "x-forwarded-host": "evil.example" },
  { "x-long": "v".repeat(8000) },
  { host: "evil.example" },
  { host: "localhost.evil.example:80" },
  { host: "[::1]:1" },
  { "content-encoding": "gzip" },
  { expect: "100-continue" },
]

const METHODS = ["GET", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "HEAD"]

interface Planned {
  /** The documented route it was made from (`METHOD template`). */
  readonly route: string
  readonly method: string
  readonly target: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
  /** Send as raw bytes (the path exactly as written). */
  readonly raw: boolean
}

const plan = (random: Random, routes: ReadonlyArray<RouteCase>, ids: Ids): Planned => {
  const route = pick(random, routes)
  const method = chance(random, 0.8) ? route.method : pick(random, METHODS)
  const values: Record<string, string> = {}
  for (const param of route.params)
    values[param] = chance(random, 0.5) ? (ids[param] ?? "x") : idValue(random, param, ids)
  let path = fill(route.template, ids, values)
  if (chance(random, 0.05)) path = `${path}/`
  if (chance(random, 0.05)) path = path.replace("/api/", pick(random, ["/api/./", "/api/x/../", "/api//", "/api/%2e/"]))
  const target = `${path}${pick(random, QUERIES)}`
  const headers: Record<string, string> = { ...pick(random, EXTRA_HEADERS) }
  const type = pick(random, CONTENT_TYPES)
  if (type !== undefined) headers["content-type"] = type
  const body = method === "GET" || method === "HEAD" ? undefined : BODIES(random)
  // Raw bytes for anything the URL parser would rewrite, and now and then for the rest.
  const raw = /%|\/\.|\.\.|\/\/|\\/.test(path) || chance(random, 0.1)
  return { route: `${route.method} ${route.template}`, method, target, headers, body, raw }
}

interface Outcome {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

const send = async (server: TestServer, request: Planned): Promise<Outcome> => {
  const host = `127.0.0.1:${server.server.port}`
  if (request.raw) {
    const headers: Record<string, string> = { host, connection: "close", ...request.headers }
    if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(request.body))
    // A body on a raw HEAD/GET would be read as the next request; those carry none.
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`)
    const bytes = Buffer.concat([
      Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`, "latin1"),
      Buffer.from(request.body ?? "", "utf8"),
    ])
    // Stream responses never end; only ask raw for requests that cannot open one.
    const response = await rawRequest(server.url, bytes)
    return { status: response.status, contentType: response.headers["content-type"] ?? "", body: response.body }
  }
  const controller = new AbortController()
  const response = await fetch(`${server.url}${request.target}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    signal: controller.signal,
  })
  const contentType = response.headers.get("content-type") ?? ""
  if (contentType.includes("text/event-stream")) {
    controller.abort()
    return { status: response.status, contentType, body: "" }
  }
  return { status: response.status, contentType, body: await response.text() }
}

const isStreamRoute = (target: string) => /^\/api\/event\/?(\?|$)|\/event\/?(\?|$)/.test(target)

describe("request fuzzing", () => {
  it(`never answers 5xx or an untagged error, and refused requests change nothing (seed ${SEED})`, async () => {
    const server = await startTestServer()
    const random = prng(SEED)
    const routes = documentedRoutes()
    let ids = await seedTranscript(server, "fuzz seed")
    await seedTranscript(server, "second session")
    const tables = tableHasher(server.database)
    let hash = tables.hash()
    let version = tables.version()
    let refused = 0
    const failures: Array<string> = []
    const statuses = new Map<number, number>()
    const reached = new Set<string>()
    for (let i = 0; i < COUNT && failures.length < 10; i++) {
      let request = plan(random, routes, ids)
      reached.add(request.route)
      // A raw request to a stream route that the server accepts would never end; send those via fetch.
      if (request.raw && isStreamRoute(request.target) && !/%|\/\.|\.\.|\/\/|\\/.test(request.target.split("?")[0]!)) {
        request = { ...request, raw: false }
      }
      const label = `#${i} ${request.method} ${request.target.slice(0, 120)} ${JSON.stringify(request.headers).slice(0, 120)} body=${JSON.stringify(request.body?.slice(0, 60))}`
      let outcome: Outcome
      try {
        const started = performance.now()
        outcome = await before(send(server, request), 10_000, "an answer")
        if (process.env.FUZZ_TRACE)
          console.log(`${(performance.now() - started).toFixed(0)}ms ${outcome.status} ${label}`)
      } catch (cause) {
        failures.push(`${label}: request failed: ${String(cause)}`)
        continue
      }
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1)
      if (outcome.status >= 500 || outcome.status === 0)
        failures.push(`${label}: status ${outcome.status} ${outcome.body.slice(0, 200)}`)
      if (outcome.status >= 300 && request.method !== "HEAD") {
        let body: { _tag?: unknown; message?: unknown } | undefined
        try {
          body = JSON.parse(outcome.body)
        } catch {
          body = undefined
        }
        if (
          !outcome.contentType.includes("application/json") ||
          typeof body?._tag !== "string" ||
          typeof body.message !== "string"
        ) {
          failures.push(
            `${label}: ${outcome.status} without a JSON _tag body: ${outcome.contentType} ${outcome.body.slice(0, 200)}`,
          )
        }
      }
      if (outcome.status >= 400) {
        // Nothing committed at all, or (if something did) the same rows as before.
        if (tables.version() !== version) {
          const after = tables.hash()
          if (after !== hash) failures.push(`${label}: refused with ${outcome.status} but the database changed`)
          hash = after
          version = tables.version()
        }
        refused++
      } else if (request.method !== "GET" && request.method !== "HEAD") {
        // An accepted change (a turn may now run in the addressed session): let it settle, then take the
        // new state as the reference.
        const addressed = /\/api\/session\/(ses_[0-9A-Za-z]+)/.exec(request.target)?.[1]
        if (addressed) await server.api.session.wait({ sessionID: addressed })
        // The seeded transcript may have been deleted, retracted or pruned: seed a fresh one to aim at.
        const seeded = await server.api.session.messages({ sessionID: ids.sessionID })
        const intact =
          seeded.data?.data.some((m) => m.id === ids.messageID && m.retracted === undefined) === true &&
          seeded.data.data.some((m) => m.type === "assistant" && m.content.some((item) => item.id === ids.itemID))
        if (!intact) ids = await seedTranscript(server, "replacement")
        hash = tables.hash()
        version = tables.version()
      }
    }
    tables.close()
    expect(failures, `seed ${SEED}`).toEqual([])
    expect(refused).toBeGreaterThan(COUNT / 2)
    // The fuzz reached past the front door: successes, refusals and not-founds all occurred.
    const seen = [...statuses.keys()]
    expect(seen.some((status) => status < 300)).toBe(true)
    expect(seen).toEqual(expect.arrayContaining([400, 403, 404, 413, 415]))
    // Every documented route was tried.
    expect(routes.filter((route) => !reached.has(`${route.method} ${route.template}`))).toEqual([])
    expect((await server.api.health.get()).data?.healthy).toBe(true)
    // About 20 s alone; the bound leaves room for a loaded machine.
  }, 240_000)
})
