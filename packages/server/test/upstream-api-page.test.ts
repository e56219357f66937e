/**
 * `docs/upstream/api.md` is generated from upstream's published SDK and this repository's OpenAPI document
 * (`bun run api-diff`): the committed page must be what the generator writes now, so the API diff a reviewer
 * reads is the API this code serves.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))

describe("the upstream API diff page", () => {
  it("is committed up to date (docs/upstream/api.md)", async () => {
    const child = Bun.spawn([process.execPath, "run", "scripts/upstream-api-diff.ts", "--check"], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    })
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
    expect(stderr).toBe("")
    expect(code).toBe(0)
  }, 60_000)
})
