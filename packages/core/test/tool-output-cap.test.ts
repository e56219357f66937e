import type { PromisePlugin } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { ToolItem } from "../src/domain/message.ts"
import type { HostServices } from "../src/host.ts"
import { Session } from "../src/session/session.ts"
import { TOOL_OUTPUT_MAX_BYTES } from "../src/tool/tool-output.ts"
import { Execution } from "../src/turn/execution.ts"
import { testHost } from "./support/host.ts"

const call = (name: string, input: unknown) => `/tool ${name} ${JSON.stringify(input)}`

// 200,000 numbered lines of 100 bytes: 20 MB.
const LINES = 200_000
const line = (n: number) => `line ${String(n).padStart(7, "0")} ${"x".repeat(86)}`
const huge = () => Array.from({ length: LINES }, (_, i) => line(i + 1)).join("\n")

const flood: PromisePlugin = {
  id: "flood",
  setup(ctx) {
    ctx.tool.register({
      id: "flood",
      description: "Returns 20 MB.",
      parameters: Schema.Struct({}),
      execute: async () => ({ output: huge() }),
    })
  },
}

const outputOf = (item: ToolItem | undefined) =>
  item?.state.status === "completed"
    ? item.state.content.map((c) => (c.type === "text" ? c.text : "")).join("")
    : item?.state.status === "error"
      ? `ERROR ${item.state.error.message}`
      : undefined

describe("plugin tool output over the cap", () => {
  it.live("is stored capped with a tool-output:// address that read pages for this session only", () =>
    Effect.gen(function* () {
      const host = testHost({ plugins: [{ source: "inline:flood", plugin: flood }] })
      const services = yield* Layer.build(host.layer)
      const run = <A, E>(effect: Effect.Effect<A, E, HostServices>) => effect.pipe(Effect.provide(services))
      const create = () =>
        run(
          Effect.map(
            Session.use((s) => s.create({ directory: host.directory })),
            (s) => s.id,
          ),
        )
      const turn = (sessionID: string, text: string) =>
        run(Execution.use((e) => e.prompt({ sessionID, prompt: { text } }).pipe(Effect.andThen(e.wait(sessionID)))))
      const toolItems = (sessionID: string) =>
        run(Session.use((s) => s.messages(sessionID))).pipe(
          Effect.map((page) =>
            page.data.flatMap((m) =>
              m.type === "assistant" ? m.content.filter((p): p is ToolItem => p.type === "tool") : [],
            ),
          ),
        )

      const sessionID = yield* create()
      yield* turn(sessionID, call("flood", {}))
      const [item] = yield* toolItems(sessionID)
      const stored = outputOf(item)!
      expect(Buffer.byteLength(stored)).toBeLessThan(TOOL_OUTPUT_MAX_BYTES + 1024)
      expect(stored.startsWith(line(1))).toBe(true)
      expect(stored.endsWith(line(LINES))).toBe(true)
      expect(stored).toContain(`of ${LINES * 100 - 1} bytes`)
      const uri = /tool-output:\/\/sha256:[0-9a-f]{64}/.exec(stored)?.[0]
      expect(uri).toBeDefined()

      yield* turn(
        sessionID,
        [call("read", { path: uri, offset: 1, limit: 2 }), call("read", { path: uri, offset: 150_000, limit: 2 })].join(
          "\n",
        ),
      )
      const reads = (yield* toolItems(sessionID)).filter((i) => i.name === "read").map(outputOf)
      expect(reads[0]).toContain(`   1| ${line(1)}\n   2| ${line(2)}`)
      expect(reads[0]).toContain("Read more with offset=3")
      expect(reads[1]).toContain(`150000| ${line(150_000)}\n150001| ${line(150_001)}`)

      // Another session cannot read it, although the content is in the same store.
      const other = yield* create()
      yield* turn(other, call("read", { path: uri }))
      const [refused] = yield* toolItems(other)
      expect(outputOf(refused)).toContain("is not a tool output of this session")
    }).pipe(Effect.scoped),
  )
})
