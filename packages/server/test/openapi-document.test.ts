import { describe, expect, it } from "vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { apiPaths, openApiDocument } from "@opencode-ai/protocol"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { startTestServer } from "./support/server.ts"

/** The generator lives with the contract it documents. */
const PROTOCOL_DIR = fileURLToPath(new URL("../../protocol", import.meta.url))

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
      "v2.agent.list": "GET /api/agent",
      "v2.command.list": "GET /api/command",
      "v2.config.get": "GET /api/config",
      "v2.event.subscribe": "GET /api/event",
      "v2.fs.find": "GET /api/fs/find",
      "v2.fs.list": "GET /api/fs/list",
      "v2.fs.read": "GET /api/fs/read/*",
      "v2.health.get": "GET /api/health",
      "v2.location.get": "GET /api/location",
      "v2.lsp.status": "GET /api/lsp",
      "v2.mcp.status": "GET /api/mcp",
      "v2.model.list": "GET /api/model",
      "v2.permission.request.list": "GET /api/permission/request",
      "v2.plugin.list": "GET /api/plugin",
      "v2.provider.list": "GET /api/provider",
      "v2.provider.get": "GET /api/provider/{providerID}",
      "v2.session.list": "GET /api/session",
      "v2.session.create": "POST /api/session",
      "v2.session.active": "GET /api/session/active",
      "v2.session.get": "GET /api/session/{sessionID}",
      "v2.session.update": "PATCH /api/session/{sessionID}",
      "v2.session.delete": "DELETE /api/session/{sessionID}",
      "v2.session.switchAgent": "POST /api/session/{sessionID}/agent",
      "v2.session.compact": "POST /api/session/{sessionID}/compact",
      "v2.session.context": "GET /api/session/{sessionID}/context",
      "v2.session.erase": "POST /api/session/{sessionID}/erase",
      "v2.session.fork": "POST /api/session/{sessionID}/fork",
      "v2.session.events": "GET /api/session/{sessionID}/event",
      "v2.session.history": "GET /api/session/{sessionID}/history",
      "v2.session.interrupt": "POST /api/session/{sessionID}/interrupt",
      "v2.session.messages": "GET /api/session/{sessionID}/message",
      "v2.session.message": "GET /api/session/{sessionID}/message/{messageID}",
      "v2.session.correct": "PATCH /api/session/{sessionID}/message/{messageID}",
      "v2.session.retract": "DELETE /api/session/{sessionID}/message/{messageID}",
      "v2.session.removeItem": "DELETE /api/session/{sessionID}/message/{messageID}/item/{itemID}",
      "v2.session.switchModel": "POST /api/session/{sessionID}/model",
      "v2.session.permission.list": "GET /api/session/{sessionID}/permission",
      "v2.session.permission.get": "GET /api/session/{sessionID}/permission/{requestID}",
      "v2.session.permission.reply": "POST /api/session/{sessionID}/permission/{requestID}/reply",
      "v2.session.revert.stage": "POST /api/session/{sessionID}/revert/stage",
      "v2.session.revert.clear": "POST /api/session/{sessionID}/revert/clear",
      "v2.session.revert.commit": "POST /api/session/{sessionID}/revert/commit",
      "v2.session.question.list": "GET /api/session/{sessionID}/question",
      "v2.session.question.reply": "POST /api/session/{sessionID}/question/{requestID}/reply",
      "v2.session.question.reject": "POST /api/session/{sessionID}/question/{requestID}/reject",
      "v2.question.request.list": "GET /api/question/request",
      "v2.session.todo.list": "GET /api/session/{sessionID}/todo",
      "v2.session.prompt": "POST /api/session/{sessionID}/prompt",
      "v2.session.prune": "POST /api/session/{sessionID}/prune",
      "v2.session.resume": "POST /api/session/{sessionID}/resume",
      "v2.session.synthetic": "POST /api/session/{sessionID}/synthetic",
      "v2.session.wait": "POST /api/session/{sessionID}/wait",
      "v2.skill.list": "GET /api/skill",
      "v2.storage.stats": "GET /api/storage",
    })
  })

  it("has a method of the generated client for every operation", () => {
    const client = createOpencodeClient({ baseUrl: "http://127.0.0.1:9" }) as unknown as Record<string, unknown>
    const missing = Object.keys(operations(openApiDocument())).filter((id) => {
      const path = id.split(".")
      const owner = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], client)
      return typeof (owner as Record<string, unknown> | undefined)?.[path.at(-1)!] !== "function"
    })
    expect(missing).toEqual([])
  })

  it("is served at /openapi.json", async () => {
    const server = await startTestServer()
    const response = await server.fetch("/openapi.json")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(openApiDocument())
  })

  it("is committed up to date (packages/sdk/openapi.json)", () => {
    const result = Bun.spawnSync([process.execPath, "run", "script/openapi.ts", "check"], {
      cwd: PROTOCOL_DIR,
      stdout: "pipe",
      stderr: "pipe",
    })
    expect(result.stderr.toString()).toBe("")
    expect(result.exitCode).toBe(0)
  })

  it("fails the freshness check when a route changed without regeneration", () => {
    // The committed document as it was before a route was added: one operation missing.
    const committed = JSON.parse(readFileSync(join(PROTOCOL_DIR, "..", "sdk", "openapi.json"), "utf8"))
    delete committed.paths["/api/storage"]
    const stale = join(mkdtempSync(join(tmpdir(), "oc2-openapi-")), "openapi.json")
    writeFileSync(stale, `${JSON.stringify(committed, null, 2)}\n`)
    const result = Bun.spawnSync([process.execPath, "run", "script/openapi.ts", "check", stale], {
      cwd: PROTOCOL_DIR,
      stdout: "pipe",
      stderr: "pipe",
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr.toString()).toContain("is stale: the HTTP API changed")
  })
})
