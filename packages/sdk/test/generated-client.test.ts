import { createOpencodeClient as createUpstreamClient } from "upstream-sdk/v2"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { compareGenerated } from "../script/check.ts"
import { basicAuthorization, createOpencodeClient, OpencodeClient } from "../src/v2.ts"

/** Every method path under an object's getters (`session.permission.reply`), found on its prototypes. */
const methodPaths = (root: object, prefix = ""): Array<string> => {
  const out: Array<string> = []
  const seen = new Set<string>()
  for (
    let proto = Object.getPrototypeOf(root);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(proto))) {
      if (name === "constructor" || seen.has(name)) continue
      seen.add(name)
      if (typeof descriptor.get === "function") {
        const child = (root as Record<string, unknown>)[name]
        if (typeof child === "object" && child !== null) out.push(...methodPaths(child, `${prefix}${name}.`))
      } else if (typeof descriptor.value === "function") {
        out.push(`${prefix}${name}`)
      }
    }
  }
  return out
}

/**
 * Upstream v2 operations this host does not serve, by path prefix (see `docs/upstream/api.md`, which gives
 * the reason for each).
 */
const NOT_SERVED = [
  "pty.",
  "integration.",
  "credential.",
  "question.",
  "session.question.",
  "session.revert.",
  "reference.",
  "projectCopy.",
  "permission.saved.",
  "session.permission.create",
]

/** A loopback server that answers every request with what it received. */
let echo: ReturnType<typeof Bun.serve>
beforeAll(() => {
  echo = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) =>
      Response.json({
        url: request.url,
        method: request.method,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      }),
  })
})
afterAll(() => echo.stop(true))

describe("the generated client", () => {
  it("is up to date with openapi.json (src/gen regenerates identically)", () => {
    expect(compareGenerated()).toEqual([])
  })

  it("has every operation of upstream's published v2 client at the same path, but those this host does not serve", () => {
    const upstream = methodPaths(createUpstreamClient({ baseUrl: "http://127.0.0.1:1" }).v2)
    const ours = new Set(methodPaths(createOpencodeClient({ baseUrl: "http://127.0.0.1:1" }).v2))
    expect(upstream.length).toBeGreaterThan(40)
    const missing = upstream.filter((path) => !ours.has(path) && !NOT_SERVED.some((prefix) => path.startsWith(prefix)))
    expect(missing).toEqual([])
    // The additions sit beside the shared operations.
    for (const addition of [
      "session.correct",
      "session.retract",
      "session.removeItem",
      "session.prune",
      "session.erase",
    ])
      expect(ours.has(addition)).toBe(true)
  })

  it("sends flat parameters where upstream's client sends them, and the location as upstream does", async () => {
    const client = createOpencodeClient({ baseUrl: `${echo.url}`, directory: "/tmp/a b", password: "pw" })
    expect(client).toBeInstanceOf(OpencodeClient)
    const got = (await client.v2.session.messages({ sessionID: "ses_1", limit: 5, order: "desc" })).data as unknown as {
      url: string
      headers: Record<string, string>
    }
    const url = new URL(got.url)
    expect(url.pathname).toBe("/api/session/ses_1/message")
    expect(url.searchParams.get("limit")).toBe("5")
    // A GET carries the location in the query (both spellings), not in the header.
    expect(url.searchParams.get("directory")).toBe("/tmp/a b")
    expect(url.searchParams.get("location[directory]")).toBe("/tmp/a b")
    expect(got.headers["x-opencode-directory"]).toBeUndefined()
    expect(got.headers.authorization).toBe(basicAuthorization("pw"))
    const posted = (await client.v2.session.prompt({ sessionID: "ses_1", prompt: { text: "hi" }, delivery: "steer" }))
      .data as unknown as { method: string; headers: Record<string, string>; body: string }
    expect(posted.method).toBe("POST")
    expect(JSON.parse(posted.body)).toEqual({ prompt: { text: "hi" }, delivery: "steer" })
    expect(decodeURIComponent(posted.headers["x-opencode-directory"]!)).toBe("/tmp/a b")
  })

  it("refuses a path parameter that would address another route, before sending", async () => {
    const client = createOpencodeClient({ baseUrl: `${echo.url}` })
    const result = await client.v2.session.retract({ sessionID: "ses_1", messageID: ".." })
    expect(result.response).toBeUndefined()
    expect(result.error).toMatchObject({ _tag: "InvalidRequestError", field: "messageID" })
  })

  it("encodes the password as UTF-8 Basic credentials for user opencode", () => {
    expect(basicAuthorization("s3cret")).toBe(`Basic ${Buffer.from("opencode:s3cret").toString("base64")}`)
    expect(basicAuthorization("pässwörd")).toBe(`Basic ${Buffer.from("opencode:pässwörd", "utf8").toString("base64")}`)
  })
})
