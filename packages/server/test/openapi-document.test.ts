import { describe, expect, it } from "vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { apiPaths, openApiDocument } from "../src/api/openapi.ts"
import { startTestServer } from "./support/server.ts"

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url))

const operations = (document: ReturnType<typeof openApiDocument>) => {
  const out: Record<string, string> = {}
  for (const [path, item] of Object.entries(
    document.paths as Record<string, Record<string, { operationId: string }>>,
  )) {
    for (const [method, operation] of Object.entries(item))
      out[operation.operationId] = `${method.toUpperCase()} ${path}`
  }
  return out
}

describe("the OpenAPI document", () => {
  it("has exactly the paths the server registers as routes (read without building the document)", () => {
    expect(apiPaths()).toEqual(Object.keys(openApiDocument().paths as object).sort())
  })

  it("names every operation as the SDK exposes it", () => {
    expect(operations(openApiDocument())).toEqual({
      health: "GET /api/health",
      "session.create": "POST /api/session",
      "session.list": "GET /api/session",
      "session.get": "GET /api/session/{sessionID}",
      "session.update": "PATCH /api/session/{sessionID}",
      "session.delete": "DELETE /api/session/{sessionID}",
      "session.prompt": "POST /api/session/{sessionID}/prompt",
      "session.synthetic": "POST /api/session/{sessionID}/synthetic",
      "session.interrupt": "POST /api/session/{sessionID}/interrupt",
      "session.wait": "POST /api/session/{sessionID}/wait",
      "session.resume": "POST /api/session/{sessionID}/resume",
      "session.log": "GET /api/session/{sessionID}/log",
      "session.prune": "POST /api/session/{sessionID}/prune",
      "session.erase": "POST /api/session/{sessionID}/erase",
      "session.compact": "POST /api/session/{sessionID}/compact",
      "message.list": "GET /api/session/{sessionID}/message",
      "message.get": "GET /api/session/{sessionID}/message/{messageID}",
      "message.update": "PATCH /api/session/{sessionID}/message/{messageID}/part/{partID}",
      "message.remove": "DELETE /api/session/{sessionID}/message/{messageID}",
      "part.remove": "DELETE /api/session/{sessionID}/message/{messageID}/part/{partID}",
      "plugin.list": "GET /api/plugin",
      "permission.list": "GET /api/session/{sessionID}/permission",
      "permission.reply": "POST /api/session/{sessionID}/permission/{permissionID}",
      "db.stats": "GET /api/db/stats",
      "provider.list": "GET /api/provider",
      "agent.list": "GET /api/agent",
      "config.get": "GET /api/config",
      "event.subscribe": "GET /api/event",
    })
  })

  it("is served at /openapi.json", async () => {
    const server = await startTestServer()
    const response = await server.fetch("/openapi.json")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(openApiDocument())
  })

  it("is committed up to date (packages/sdk/openapi.json)", () => {
    const result = Bun.spawnSync([process.execPath, "run", "script/openapi.ts", "check"], {
      cwd: SERVER_DIR,
      stdout: "pipe",
      stderr: "pipe",
    })
    expect(result.stderr.toString()).toBe("")
    expect(result.exitCode).toBe(0)
  })

  it("fails the freshness check when a route changed without regeneration", () => {
    // The committed document as it was before a route was added: one operation missing.
    const committed = JSON.parse(readFileSync(join(SERVER_DIR, "..", "sdk", "openapi.json"), "utf8"))
    delete committed.paths["/api/db/stats"]
    const stale = join(mkdtempSync(join(tmpdir(), "oc2-openapi-")), "openapi.json")
    writeFileSync(stale, `${JSON.stringify(committed, null, 2)}\n`)
    const result = Bun.spawnSync([process.execPath, "run", "script/openapi.ts", "check", stale], {
      cwd: SERVER_DIR,
      stdout: "pipe",
      stderr: "pipe",
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.toString()).toContain("is stale: the HTTP API changed")
  })
})
