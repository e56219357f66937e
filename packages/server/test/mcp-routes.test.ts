import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { LISTENING, readUntil, spawnCli } from "./support/cli.ts"
import { startTestServer } from "./support/server.ts"
import { tempDir } from "./support/tmp.ts"

const STDIO_SERVER = fileURLToPath(new URL("../../core/test/fixtures/mcp/stdio-server.ts", import.meta.url))

describe("MCP servers over HTTP", () => {
  it("starts with a malformed MCP entry reported in GET /api/config and serves the status at GET /api/mcp", async () => {
    const directory = tempDir()
    mkdirSync(join(directory, ".git"))
    writeFileSync(
      join(directory, "opencode.json"),
      JSON.stringify({
        mcp: {
          files: { type: "local", command: [process.execPath, STDIO_SERVER], environment: { TOKEN: "secret-token" } },
          broken: { type: "local", command: [join(directory, "missing-server")] },
          typo: { type: "local", command: [] },
          off: {
            type: "remote",
            url: "http://127.0.0.1:9/mcp",
            enabled: false,
            headers: { authorization: "Bearer x" },
          },
        },
      }),
    )
    const child = spawnCli(["serve", "--port", "0"], { cwd: directory, env: { OPENCODE_DB: join(directory, "db") } })
    const { text } = await readUntil(child.stdout, (out) => LISTENING.test(out))
    const url = LISTENING.exec(text)![1]!
    const client = createOpencodeClient({ baseUrl: url })

    const config = (await client.v2.config.get()).data!
    expect(config.diagnostics).toEqual([
      {
        kind: "config",
        path: join(directory, "opencode.json"),
        message: expect.stringMatching(/^MCP server left out: mcp\.typo\.command: /),
      },
    ])
    // The good entries are in the effective config, their credentials redacted.
    const mcp = (config.data as { mcp: Record<string, any> }).mcp
    expect(Object.keys(mcp).sort()).toEqual(["broken", "files", "off"])
    expect(mcp["files"].environment).toEqual({ TOKEN: "[redacted]" })
    expect(mcp["off"].headers).toEqual({ authorization: "[redacted]" })

    const status = (await client.v2.mcp.status()).data!.data
    expect(Object.keys(status).sort()).toEqual(["broken", "files", "off"])
    expect(status["files"]).toMatchObject({ status: "connected", type: "local" })
    expect(status["files"]!.tools).toEqual(
      expect.arrayContaining([{ id: "files_echo", name: "echo", description: "Echoes its text" }]),
    )
    expect(status["broken"]).toMatchObject({ status: "failed", error: expect.stringContaining("missing-server") })
    expect(status["off"]).toEqual({ status: "disabled", type: "remote", tools: [] })
    child.kill("SIGTERM")
    expect(await child.exited).toBe(0)
  })

  it("GET /api/mcp from a foreign origin starts nothing; the same read from the client connects", async () => {
    const test = await startTestServer({
      config: { mcp: { files: { type: "local", command: [process.execPath, STDIO_SERVER] } } },
    })
    const foreignHeaders: Array<Record<string, string>> = [
      { origin: "https://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ]
    for (const headers of foreignHeaders) {
      const foreign = await test.fetch("/api/mcp", { headers })
      expect(foreign.status).toBe(200)
      expect(await foreign.json()).toEqual({
        data: { files: { status: "failed", error: "not started yet", type: "local", tools: [] } },
      })
    }
    const own = (await test.api.mcp.status()).data!.data
    expect(own["files"]).toMatchObject({ status: "connected" })
  })

  it("is behind the front door: without the password GET /api/mcp is 401", async () => {
    const test = await startTestServer({ password: "pw", config: { mcp: {} } })
    const refused = await test.fetch("/api/mcp")
    expect(refused.status).toBe(401)
    const allowed = await test.fetch("/api/mcp", {
      headers: { authorization: `Basic ${Buffer.from("opencode:pw").toString("base64")}` },
    })
    expect(allowed.status).toBe(200)
    expect(await allowed.json()).toEqual({ data: {} })
  })
})
