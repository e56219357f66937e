import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { grep, GREP_MAX_FILE_BYTES, makeGrep } from "../src/tool/grep.ts"
import type { ToolContext } from "../src/tool/tool.ts"

let session: string
let ctx: ToolContext

beforeAll(async () => {
  session = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-grep-budget-")))
  ctx = { sessionID: "ses_test", directory: session, signal: new AbortController().signal }
  await fs.mkdir(nodePath.join(session, "slow"))
  await fs.writeFile(
    nodePath.join(session, "slow", "evil.txt"),
    Array.from({ length: 20 }, () => `${"a".repeat(40)}!`).join("\n"),
  )
  await fs.mkdir(nodePath.join(session, "big"))
  await fs.writeFile(nodePath.join(session, "big", "huge.log"), `needle\n${"x".repeat(GREP_MAX_FILE_BYTES)}`)
  await fs.writeFile(nodePath.join(session, "big", "small.txt"), "needle here\n")
})
afterAll(() => fs.rm(session, { recursive: true, force: true }))

describe("grep off the main thread", () => {
  it.effect(
    "a catastrophic pattern fails with a tool error naming it once the budget is spent, and the event loop keeps turning",
    () =>
      Effect.gen(function* () {
        const fast = makeGrep(300)
        let ticks = 0
        const timer = setInterval(() => ticks++, 10)
        const error = yield* Effect.flip(fast.execute({ pattern: "^(a|a)*$", path: "slow" }, ctx))
        clearInterval(timer)
        expect(error.message).toContain('"^(a|a)*$"')
        expect(error.message).toContain("time budget")
        // The loop ran timers while the worker was stuck: at least a few ticks in ~300 ms.
        expect(ticks).toBeGreaterThan(3)
      }),
  )

  it.effect("a file skipped for size is reported as skipped, not as no match", () =>
    Effect.gen(function* () {
      const alone = yield* grep.execute({ pattern: "needle", path: "big/huge.log" }, ctx)
      expect(alone).not.toBe("No matches found.")
      expect(alone).toContain("big/huge.log")
      expect(alone).toMatch(/Skipped 1 file over 5 MiB/)
      const both = yield* grep.execute({ pattern: "needle", path: "big" }, ctx)
      expect(both.split("\n")[0]).toBe("big/small.txt:1: needle here")
      expect(both).toContain("Skipped 1 file over 5 MiB, not searched: big/huge.log")
    }),
  )
})
