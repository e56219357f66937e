import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { startTestServer } from "./support/server.ts"

const SCRIPT_SERVER = fileURLToPath(new URL("../../core/test/fixtures/lsp-script/server.ts", import.meta.url))

describe("GET /api/lsp", () => {
  it("lists the language servers found for the directory, started or not, through the SDK", async () => {
    const test = await startTestServer({
      config: { lsp: { script: { command: [process.execPath, SCRIPT_SERVER], extensions: [".txt"] } } },
    })
    const answer = await test.api.lsp.status()
    expect(answer.data?.data.find((s) => s.name === "script")).toEqual({
      name: "script",
      root: test.directory,
      status: "available",
      extensions: [".txt"],
      restarts: 0,
    })
  })

  it("is behind the front door: without the password it is 401", async () => {
    const test = await startTestServer({ password: "pw", config: { lsp: false } })
    expect((await test.fetch("/api/lsp")).status).toBe(401)
    const allowed = await test.fetch("/api/lsp", {
      headers: { authorization: `Basic ${Buffer.from("opencode:pw").toString("base64")}` },
    })
    expect(await allowed.json()).toEqual({ data: [] })
  })
})
