import { sessionEvents } from "@opencode-ai/sdk/v2"
import { describe, expect, it } from "vitest"
import { message, rawRequest, type RawResponse } from "./support/raw-http.ts"
import { documentedRoutes, fill, type Ids, seedTranscript } from "./support/routes.ts"
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
const untouched = async (server: TestServer, ids: Ids) => {
  const session = await server.api.session.get({ sessionID: ids.sessionID })
  expect(session.data?.data.id).toBe(ids.sessionID)
  const messages = (await server.api.session.messages({ sessionID: ids.sessionID })).data!.data
  const user = messages.find((m) => m.id === ids.messageID)
  expect(user).toMatchObject({ type: "user", text: expect.stringMatching(/\S/) })
  expect(messages.every((m) => m.retracted === undefined && m.corrected === undefined)).toBe(true)
  const assistant = messages.find((m) => m.id === ids.assistantID)
  expect(assistant?.type === "assistant" && assistant.content.map((item) => item.id)).toEqual([ids.itemID])
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
      ["DELETE", `/api/session/${S}/message/${M}/item/%2e%2e`],
      ["DELETE", `/api/session/${S}/message/${M}/item/%2E%2e`],
      ["POST", `/api/session/${S}/permission/%2e%2e/reply`],
      ["POST", `/api/session/${S}/permission/..%2Freply`],
      ["GET", `/api/session/${S}/message/..`],
      // Other spellings and positions.
      ["DELETE", `/api/session/${S}/message/.%2e`],
      ["DELETE", `/api/session/${S}/message/%2e.`],
      ["DELETE", `/api/session/${S}/message/%2e`],
      ["DELETE", `/api/session/${S}/message/.`],
      ["DELETE", `/api/session/${S}/message/../`],
      ["DELETE", `/api/session/${S}/message/${M}/item/../`],
      ["PATCH", `/api/session/${S}/message/%2e%2e/`],
      ["DELETE", `/api/session/${S}/message/x/..`],
      ["DELETE", `/api/session/${S}/message/x/%2E%2E/`],
      ["DELETE", `/api/session/x/../${S}`],
      ["DELETE", `/api/session/./${S}`],
      ["DELETE", `/api/session/x\\..\\${S}`],
      ["DELETE", `/api/session/x/..\\${S}`],
      ["GET", "/api/./health"],
      ["GET", "/api/session/%2e%2e/event"],
      ["GET", "/api/session/%2e%2e/history"],
      ["GET", "/api/provider/%2e%2e"],
      ["GET", "/api/provider/.."],
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
  })

  it("names the offending path parameter", async () => {
    const server = await startTestServer()
    const { sessionID: S, messageID: M } = await seedTranscript(server)
    expect(json(await raw(server, "DELETE", `/api/session/${S}/message/%2e%2e`))).toEqual(invalid("messageID"))
    expect(json(await raw(server, "DELETE", `/api/session/${S}/message/${M}/item/..`))).toEqual(invalid("itemID"))
    expect(json(await raw(server, "POST", `/api/session/${S}/permission/%2e/reply`))).toEqual(invalid("requestID"))
    expect(json(await raw(server, "GET", "/api/session/%2E/message"))).toEqual(invalid("sessionID"))
    expect(json(await raw(server, "GET", "/api/provider/%2e%2e"))).toEqual(invalid("providerID"))
  })
})

describe("path ids are checked against their prefix and alphabet", () => {
  it("answers 400 InvalidRequestError naming the field on every route with an id, before routing", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const bad: Record<string, Array<string>> = {
      sessionID: ["xyz", ids.messageID, "ses_", "ses_a-b", "ses_a%2Fb", "ses_%00", `ses_${"a".repeat(65)}`, "SES_abc"],
      messageID: ["m1", ids.sessionID, "msg_a.b", "msg_%20x"],
      itemID: ["p", ids.messageID, "prt_a%2Fb", "prt_a%5Cb"],
      requestID: ["x", ids.itemID, "per_a%5Cb", "per_%3F"],
      // Not an id: any name but one that would split or hide a segment.
      providerID: ["a%2Fb", "a%5Cb", "a%3Fb", "a%23b", "a%00b", "a%7Fb"],
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
    // Every parameter of the document has bad values here (the rest of a path is checked by the file rules).
    const params = new Set(documentedRoutes().flatMap((route) => route.params))
    expect([...params].filter((param) => param !== "*" && bad[param] === undefined)).toEqual([])
    expect(checked).toBeGreaterThan(100)
    await untouched(server, ids)
  })

  it("still serves well-formed ids and trailing slashes", async () => {
    const server = await startTestServer()
    const { sessionID: S, messageID: M } = await seedTranscript(server)
    expect((await raw(server, "GET", `/api/session/${S}`)).status).toBe(200)
    expect((await raw(server, "GET", `/api/session/${S}/`)).status).toBe(200)
    expect((await raw(server, "GET", `/api/session/${S}/message/${M}`)).status).toBe(200)
    expect((await raw(server, "GET", `/api/session/${S}/message/${M}/`)).status).toBe(200)
    expect((await raw(server, "GET", "/api/provider/offline")).status).toBe(200)
    expect((await raw(server, "GET", "/api/session/?limit=1")).status).toBe(200)
    // A well-formed id that does not exist is still a 404 with its own tag.
    const missing = await raw(server, "GET", "/api/session/ses_0000000000000000000000000")
    expect(missing.status).toBe(404)
    expect(json(missing)).toMatchObject({ _tag: "SessionNotFoundError" })
    const item = await raw(server, "DELETE", `/api/session/${S}/message/${M}/item/prt_0000000000000000000000000`)
    expect(item.status).toBe(400)
    expect(json(item)).toMatchObject({ _tag: "InvalidTargetError", itemID: "prt_0000000000000000000000000" })
    const request = await raw(server, "GET", `/api/session/${S}/permission/per_0000000000000000000000000`)
    expect(request.status).toBe(404)
    expect(json(request)).toMatchObject({ _tag: "PermissionNotFoundError", requestID: "per_0000000000000000000000000" })
  })
})

describe("the SDK", () => {
  it("refuses a dot-segment id before sending: retract with messageID '..' does not delete the session", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const { api } = server
    for (const messageID of ["..", "."]) {
      const result = await api.session.retract({ sessionID: ids.sessionID, messageID })
      expect(result.response).toBeUndefined()
      expect(result.error).toEqual(invalid("messageID"))
    }
    const item = await api.session.removeItem({ sessionID: ids.sessionID, messageID: ids.assistantID, itemID: ".." })
    expect(item.response).toBeUndefined()
    expect(item.error).toEqual(invalid("itemID"))
    const reply = await api.session.permission.reply({ sessionID: ids.sessionID, requestID: "..", reply: "once" })
    expect(reply.error).toEqual(invalid("requestID"))
    const del = await api.session.delete({ sessionID: "." })
    expect(del.error).toEqual(invalid("sessionID"))
    const empty = await api.session.delete({ sessionID: "" })
    expect(empty.error).toEqual(invalid("sessionID"))
    await untouched(server, ids)
  })

  it("encodes other odd ids so the server refuses them by name", async () => {
    const server = await startTestServer()
    const ids = await seedTranscript(server)
    const { api } = server
    for (const messageID of ["%2e%2e", "a/../..", "../x", "msg_1?x=1#y"]) {
      const result = await api.session.retract({ sessionID: ids.sessionID, messageID })
      expect(result.response?.status, messageID).toBe(400)
      expect(result.error, messageID).toEqual(invalid("messageID"))
    }
    for (const itemID of ["../..", "prt_1/x", "prt_1#x"]) {
      const result = await api.session.removeItem({ sessionID: ids.sessionID, messageID: ids.assistantID, itemID })
      expect(result.response?.status, itemID).toBe(400)
      expect(result.error, itemID).toEqual(invalid("itemID"))
    }
    await untouched(server, ids)
  })

  it("refuses a dot-segment session id for the durable event stream before opening it", async () => {
    const server = await startTestServer()
    const failure = await sessionEvents(server.client, { sessionID: ".." }).catch((error: unknown) => error)
    expect(failure).toMatchObject({ name: "EventStreamError", error: invalid("sessionID") })
  })
})
