import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Layer, Logger } from "effect"
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
  it.effect("a bus listener that throws is logged by the host's logger, and delivery goes on", () => {
    const log = capturing()
    const seen: Array<string> = []
    return Effect.gen(function* () {
      const bus = yield* Bus
      bus.subscribe(() => {
        throw new Error("listener broke")
      })
      bus.subscribe((event) => void seen.push(event.type))
      yield* (yield* Session).create({ directory: tempDir(), title: "t" })
      expect(seen.length).toBeGreaterThan(0)
      const entry = log.entries.find((e) => e.message.includes("bus listener failed"))
      expect(entry).toBeDefined()
      expect(entry!.cause).toContain("listener broke")
    }).pipe(Effect.provide(StoreLayer({ path: tempDb(), persist: false }).pipe(Layer.provideMerge(log.layer))))
  })

  it.live("a plugin cleanup that fails at shutdown is logged with its cause, and shutdown completes", () => {
    const log = capturing()
    const host = HostLayer({
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
    }).pipe(Layer.provideMerge(log.layer))
    // The host is built and then shut down before the log is read.
    return Effect.void.pipe(
      Effect.provide(host),
      Effect.andThen(
        Effect.sync(() => {
          const entry = log.entries.find((e) => e.message.includes("plugin cleaner: cleanup failed"))
          expect(entry).toBeDefined()
          expect(entry!.cause).toContain("cleanup broke")
        }),
      ),
    )
  })
})
