import { describe, expect, it } from "vitest"
import { message, rawRequest, type RawResponse } from "./support/raw-http.ts"
import { documentedRoutes, fill, seedTranscript } from "./support/routes.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

const invalid = (field?: string) => ({
  _tag: "InvalidRequestError",
  message: expect.any(String),
  ...(field ? { field } : {}),
})

const raw = (server: TestServer, method: string, target: string, body?: string) =>
  rawRequest(
    server.url,
    message(
      method,
      target,
      { host: `127.0.0.1:${server.server.port}`, ...(body ? { "content-type": "application/json" } : {}) },
      body,
    ),
  )

const json = (response: RawResponse) => JSON.parse(response.body) as Record<string, unknown>

/** The session and its transcript are exactly as seeded: nothing deleted, retracted or removed. */
const untouched = async (server: TestServer, ids: { sessionID: string; messageID: string }) => {
  const session = await server.client.session.get({ path: { sessionID: ids.sessionID } })
  expect(session.data?.id).toBe(ids.sessionID)
  const got = await server.client.message.get({ path: { sessionID: ids.sessionID, messageID: ids.messageID } })
  expect(got.data?.retracted).toBeUndefined()
  expect(got.data?.parts.length).toBeGreaterThan(0)
}

describe("dot segments never reach another route", () => {
  it("refuses `..` and `.` in every spelling with 400 InvalidRequestError; the session survives", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const { sessionID: S, messageID: M } = ids
    const attempts: Array<[string, string]> = [
      // The reported attacks: each used to delete the session or retract M.
      ["DELETE", `/api/session/${S}/message/%2e%2e`],
      ["DELETE", `/api/session/${S}/message/..`],
      ["DELETE", `/api/session/${S}/message/${M}/part/%2e%2e`],
      ["DELETE", `/api/session/${S}/message/${M}/part/%2E%2e`],
      ["GET", `/api/session/${S}/message/..`],
      // Other spellings and positions.
      ["DELETE", `/api/session/${S}/message/.%2e`],
      ["DELETE", `/api/session/${S}/message/%2e.`],
      ["DELETE", `/api/session/${S}/message/%2e`],
      ["DELETE", `/api/session/${S}/message/.`],
      ["DELETE", `/api/session/${S}/message/../`],
      ["DELETE", `/api/session/${S}/message/${M}/part/../`],
      ["DELETE", `/api/session/${S}/message/x/..`],
      ["DELETE", `/api/session/${S}/message/x/%2E%2E/`],
      ["DELETE", `/api/session/x/../${S}`],
      ["DELETE", `/api/session/./${S}`],
      ["DELETE", `/api/session/x\\..\\${S}`],
      ["DELETE", `/api/session/x/..\\${S}`],
      ["GET", "/api/./health"],
      ["GET", "/api/session/%2e%2e/log"],
      ["POST", `/api/session/${S}/message/%2e%2e/../erase`],
      // Absolute-form request targets are checked the same way.
      ["DELETE", `${server.url}/api/session/${S}/message/%2e%2e`],
      ["DELETE", `${server.url}/api/x/../session/${S}`],
    ]
    for (const [method, target] of attempts) {
      const response = await raw(server, method, target)
      expect(response.status, `${method} ${target}`).toBe(400)
      expect(response.headers["content-type"], `${method} ${target}`).toContain("application/json")
      expect(json(response), `${method} ${target}`).toMatchObject({
        _tag: "InvalidRequestError",
        message: expect.any(String),
      })
    }
    await untouched(server, ids)
    expect((await server.client.message.list({ path: { sessionID: S } })).data!.items.every((m) => !m.retracted)).toBe(
      true,
    )
  })

  it("names the offending path parameter", async () => {
    const server = await startTestServer()
    const { sessionID: S, messageID: M } = await seedTranscript(server)
    expect(json(await raw(server, "DELETE", `/api/session/${S}/message/%2e%2e`))).toEqual(invalid("messageID"))
    expect(json(await raw(server, "DELETE", `/api/session/${S}/message/${M}/part/..`))).toEqual(invalid("partID"))
    expect(json(await raw(server, "GET", "/api/session/%2E/message"))).toEqual(invalid("sessionID"))
  })
})

describe("path ids are checked against their prefix and alphabet", () => {
  it("answers 400 InvalidRequestError naming the field on every route with an id, before routing", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const bad: Record<string, Array<string>> = {
      sessionID: ["xyz", ids.messageID, "ses_", "ses_a-b", "ses_a%2Fb", "ses_%00", `ses_${"a".repeat(65)}`, "SES_abc"],
      messageID: ["m1", ids.sessionID, "msg_a.b", "msg_%20x"],
      partID: ["p", ids.messageID, "prt_a%2Fb"],
      permissionID: ["x", "per_a%5Cb"],
    }
    let checked = 0
    for (const route of documentedRoutes()) {
      for (const param of route.params) {
        for (const value of bad[param] ?? []) {
          const target = fill(route.template, ids, { [param]: value })
          const response = await raw(server, route.method, target, route.body ? "{}" : undefined)
          expect(response.status, `${route.method} ${target}`).toBe(400)
          expect(json(response), `${route.method} ${target}`).toEqual(invalid(param))
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(50)
    await untouched(server, ids)
  })

  it("still serves well-formed ids and trailing slashes", async () => {
    const server = await startTestServer()
    const { sessionID: S, messageID: M } = await seedTranscript(server)
    expect((await raw(server, "GET", `/api/session/${S}`)).status).toBe(200)
    expect((await raw(server, "GET", `/api/session/${S}/`)).status).toBe(200)
    expect((await raw(server, "GET", `/api/session/${S}/message/${M}`)).status).toBe(200)
    expect((await raw(server, "GET", "/api/session/?limit=1")).status).toBe(200)
    // A well-formed id that does not exist is still a 404 with its own tag.
    const missing = await raw(server, "GET", "/api/session/ses_0000000000000000000000000")
    expect(missing.status).toBe(404)
    expect(json(missing)).toMatchObject({ _tag: "SessionNotFoundError" })
  })
})

describe("the SDK", () => {
  it("refuses a dot-segment id before sending: message.remove with messageID '..' does not delete the session", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const { client } = server
    for (const messageID of ["..", "."]) {
      const result = await client.message.remove({ path: { sessionID: ids.sessionID, messageID } })
      expect(result.response).toBeUndefined()
      expect(result.error).toEqual(invalid("messageID"))
    }
    const part = await client.part.remove({
      path: { sessionID: ids.sessionID, messageID: ids.messageID, partID: ".." },
    })
    expect(part.error).toEqual(invalid("partID"))
    const del = await client.session.delete({ path: { sessionID: "." } })
    expect(del.error).toEqual(invalid("sessionID"))
    await untouched(server, ids)
  })

  it("encodes other odd ids so the server refuses them by name", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const { client } = server
    for (const messageID of ["%2e%2e", "a/../..", "../x", "msg_1?x=1#y"]) {
      const result = await client.message.remove({ path: { sessionID: ids.sessionID, messageID } })
      expect(result.response?.status, messageID).toBe(400)
      expect(result.error, messageID).toEqual(invalid("messageID"))
    }
    await untouched(server, ids)
  })

  it("refuses a dot-segment session id for the durable log before opening it", async () => {
    const server = await startTestServer({ config: { events: { persist: true } } })
    const failure = await server.client
      .log({ sessionID: ".." })
      .next()
      .catch((error: unknown) => error)
    expect(failure).toMatchObject({ name: "EventStreamError", error: invalid("sessionID") })
  })
})
