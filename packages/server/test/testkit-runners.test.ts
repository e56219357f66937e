import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

describe("test kit runners", () => {
  it("works from bun test as well as vitest", async () => {
    const file = fileURLToPath(new URL("./runners/bun-test.spec.ts", import.meta.url))
    const child = Bun.spawn([process.execPath, "test", file], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    })
    const [code, stdout, stderr] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ])
    const output = stdout + stderr
    expect(output, output).toMatch(/\b1 pass\b/)
    expect(output).toMatch(/\b0 fail\b/)
    expect(code).toBe(0)
  })
})
