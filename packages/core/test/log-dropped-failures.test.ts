import { Cause, Effect, Layer, Logger, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import { Bus } from "../src/bus/bus.ts"
import { HostLayer, StoreLayer } from "../src/host.ts"
import { Session } from "../src/session/session.ts"
import { tempDb, tempDir } from "./support/tmp.ts"

/** A logger that keeps every entry: the host's logger in these tests. */
const capturing = () => {
  const entries: Array<{ readonly message: string; readonly cause: string }> = []
  const logger = Logger.make((options) => {
    const parts = Array.isArray(options.message) ? options.message : [options.message]
    entries.push({
      message: parts.map(String).join(" "),
      cause: options.cause.reasons.length > 0 ? Cause.pretty(options.cause) : "",
    })
  })
  return { entries, layer: Logger.layer([logger]) }
}

describe("failures the host drops are logged through the host logger, with their cause", () => {
  it("a bus listener that throws is logged by the host's logger, and delivery goes on", async () => {
    const log = capturing()
    const runtime = ManagedRuntime.make(
      StoreLayer({ path: tempDb(), persist: false }).pipe(Layer.provideMerge(log.layer)),
    )
    try {
      const seen: Array<string> = []
      await runtime.runPromise(
        Effect.gen(function* () {
          const bus = yield* Bus
          bus.subscribe(() => {
            throw new Error("listener broke")
          })
          bus.subscribe((event) => void seen.push(event.type))
          yield* (yield* Session).create({ directory: tempDir(), title: "t" })
        }),
      )
      expect(seen.length).toBeGreaterThan(0)
      const entry = log.entries.find((e) => e.message.includes("bus listener failed"))
      expect(entry).toBeDefined()
      expect(entry!.cause).toContain("listener broke")
    } finally {
      await runtime.dispose()
    }
  })

  it("a plugin cleanup that fails at shutdown is logged with its cause, and shutdown completes", async () => {
    const log = capturing()
    const runtime = ManagedRuntime.make(
      HostLayer({
        database: tempDb(),
        config: { data: {}, directory: tempDir() },
        plugins: [
          {
            source: "inline:cleaner",
            plugin: {
              id: "cleaner",
              setup: () => () => {
                throw new Error("cleanup broke")
              },
            },
          },
        ],
      }).pipe(Layer.provideMerge(log.layer)),
    )
    await runtime.runPromise(Effect.void)
    await runtime.dispose()
    const entry = log.entries.find((e) => e.message.includes("plugin cleaner: cleanup failed"))
    expect(entry).toBeDefined()
    expect(entry!.cause).toContain("cleanup broke")
  })
})
