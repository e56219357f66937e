/**
 * `scripts/upstream-api-diff.ts` (the generator of `docs/upstream/api.md`) against a small OpenAPI document:
 * upstream's operations read from the published SDK, matched by method and path, reasons for the missing
 * ones, and additions with their body, answer, error tags and the event they commit.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { committedEvents, renderPage, upstreamOperations } from "../../../scripts/upstream-api-diff.ts"
import { tempDir } from "./support/tmp.ts"

const json = (schema: object) => ({ content: { "application/json": { schema } } })
const notFound = { description: "SessionNotFoundError", ...json({ $ref: "#/components/schemas/SessionNotFoundError" }) }

const document = {
  openapi: "3.1.0",
  paths: {
    "/api/health": { get: { operationId: "health.get", responses: { "200": json({ type: "object" }) } } },
    "/api/session/{id}/prompt": {
      post: { operationId: "session.prompt", responses: { "200": json({ type: "object" }) } },
    },
    "/api/session/{sessionID}/message/{messageID}/part/{partID}": {
      patch: {
        operationId: "message.correct",
        summary: "Correct the text of a part",
        "x-opencode-event": "session.next.text.corrected",
        requestBody: json({
          type: "object",
          properties: { text: { type: "string" }, reason: { type: "string" } },
          required: ["text"],
        }),
        responses: {
          "200": json({ $ref: "#/components/schemas/Corrected" }),
          "404": json({
            anyOf: [
              { $ref: "#/components/schemas/SessionNotFoundError" },
              { $ref: "#/components/schemas/MessageNotFoundError" },
            ],
          }),
          "409": { description: "ConflictError", ...json({ $ref: "#/components/schemas/ConflictError" }) },
        },
      },
    },
    "/api/session/{sessionID}/erase": {
      post: {
        operationId: "session.erase",
        description: "Erase superseded payloads.\nx-opencode-event: `session.next.erased`",
        responses: { "204": { description: "Erased" }, "404": notFound },
      },
    },
  },
}

const page = () => {
  const dir = tempDir("oc2-api-diff-")
  const path = join(dir, "openapi.json")
  writeFileSync(path, JSON.stringify(document))
  return renderPage(path)
}

const rowOf = (text: string, classPath: string) =>
  text.split("\n").find((line) => line.startsWith(`| \`${classPath}\``))

describe("the upstream API diff", () => {
  it("reads every upstream v2 operation with its method, path and parameters", () => {
    const { version, operations } = upstreamOperations()
    expect(version).toBe("1.19.3")
    expect(operations.length).toBeGreaterThan(50)
    expect(operations.find((op) => op.classPath === "v2.session.prompt")).toMatchObject({
      typeName: "V2SessionPrompt",
      method: "POST",
      path: "/api/session/{sessionID}/prompt",
      sse: false,
      parameters: [
        { name: "sessionID", in: "path", optional: false },
        { name: "id", in: "body", optional: true },
        { name: "prompt", in: "body", optional: false },
        { name: "delivery", in: "body", optional: true },
        { name: "resume", in: "body", optional: true },
      ],
      successStatuses: ["200"],
    })
    expect(operations.find((op) => op.classPath === "v2.session.permission.reply")).toMatchObject({
      method: "POST",
      path: "/api/session/{sessionID}/permission/{requestID}/reply",
      successStatuses: ["204"],
    })
    expect(operations.find((op) => op.classPath === "v2.event.subscribe")).toMatchObject({
      method: "GET",
      path: "/api/event",
      sse: true,
    })
    expect(new Set(operations.map((op) => op.classPath)).size).toBe(operations.length)
  })

  it("marks an upstream operation identical when the method and path exist here, parameter names aside", () => {
    const text = page()
    expect(rowOf(text, "v2.health.get")).toContain("identical (`health.get`)")
    expect(rowOf(text, "v2.session.prompt")).toContain("identical (`session.prompt`; path parameters here: id)")
  })

  it("gives the reason of a missing operation from the table, or says none is recorded", () => {
    const text = page()
    expect(rowOf(text, "v2.pty.list")).toContain("missing here: not in this host: no pseudo-terminals")
    expect(rowOf(text, "v2.session.list")).toContain("missing here: no reason recorded")
  })

  it("lists additions with body, answer, error tags and the event committed", () => {
    const text = page()
    expect(text).toContain("Additions here: 2.")
    expect(text).toContain(
      [
        "### `message.correct`: PATCH `/api/session/{sessionID}/message/{messageID}/part/{partID}`",
        "",
        "Correct the text of a part",
        "",
        "- request body: `{ text: string, reason?: string }`",
        "- response: 200 `Corrected`",
        "- errors: 404 SessionNotFoundError \\| MessageNotFoundError, 409 ConflictError",
        "- commits: `session.next.text.corrected`",
      ].join("\n"),
    )
    expect(text).toContain(
      "- response: 204 (no body)\n- errors: 404 SessionNotFoundError\n- commits: `session.next.erased`",
    )
  })

  it("reads the committed event from the extension or the description", () => {
    expect(committedEvents({ "x-opencode-event": ["a.b", "c.d"] })).toEqual(["a.b", "c.d"])
    expect(committedEvents({ description: "Does it.\nx-opencode-event: session.next.pruned" })).toEqual([
      "session.next.pruned",
    ])
    expect(committedEvents({ summary: "No event" })).toEqual([])
  })
})
