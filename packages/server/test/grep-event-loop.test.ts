/**
 * A grep whose pattern backtracks catastrophically must not stall the server: the offline provider turns
 * a prompt line into the tool call, a real `opencode2 serve` child runs it, and this test measures
 * `/api/health` the whole time. Before the fix the regex ran on the main thread and health took seconds.
 */
import type { AssistantMessage, ToolPart } from "@opencode-ai/sdk"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { spawnServe } from "./support/e2e-serve.ts"
import { tempDir } from "./support/tmp.ts"

const PATTERN = "^(a|a)*$"

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

describe("a catastrophic grep", () => {
  it("keeps /api/health p99 under 100 ms while it runs, then fails with the budget error naming the pattern", async () => {
    const cwd = tempDir("oc2-grep-")
    writeFileSync(join(cwd, "evil.txt"), Array.from({ length: 20 }, () => `${"a".repeat(40)}!`).join("\n"))
    const config = join(cwd, "opencode.json")
    writeFileSync(config, "{}")
    const child = await spawnServe({ database: join(cwd, "db.sqlite"), config, cwd })
    try {
      const { client, url } = child
      const sessionID = (await client.session.create({ body: { directory: cwd } })).data!.id
      let done = false
      const turn = client.session
        .prompt({ path: { sessionID }, body: { text: `search\n/tool grep ${JSON.stringify({ pattern: PATTERN })}` } })
        .then(() => client.session.wait({ path: { sessionID }, signal: AbortSignal.timeout(30_000) }))
        .finally(() => {
          done = true
        })

      // Sequential health checks for as long as the turn runs; one that does not answer in 2 s counts as 2 s.
      const latencies: Array<number> = []
      while (!done) {
        const start = performance.now()
        const status = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.status,
          () => 0,
        )
        latencies.push(status === 200 ? performance.now() - start : 2000)
      }
      await turn
      console.log(
        `health during grep: n=${latencies.length} p50=${percentile(latencies, 50).toFixed(1)} ms p99=${percentile(latencies, 99).toFixed(1)} ms`,
      )
      expect(latencies.length).toBeGreaterThan(20)
      expect(percentile(latencies, 99)).toBeLessThan(100)

      const messages = (await client.message.list({ path: { sessionID } })).data!.items
      const tool = messages
        .filter((m): m is AssistantMessage => m.type === "assistant")
        .flatMap((m) => m.parts)
        .find((p): p is ToolPart => p.type === "tool" && p.tool === "grep")!
      expect(tool.state).toBe("error")
      expect(tool.state === "error" && tool.error).toContain(JSON.stringify(PATTERN))
      expect(tool.state === "error" && tool.error).toContain("time budget")
    } finally {
      await child.kill()
    }
  }, 60_000)
})
