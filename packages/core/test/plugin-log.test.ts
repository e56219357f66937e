import type { EffectPlugin, PromisePlugin } from "@opencode-ai/plugin"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, References } from "effect"
import { HostLayer } from "../src/host.ts"
import { formatLogLine } from "../src/log.ts"
import { tempDb, tempDir } from "./support/tmp.ts"

describe("plugins log through the host's logger, in both flavours", () => {
  it.live("ctx.log lines carry the plugin id and fields, at the host's level", () => {
    const lines: Array<string> = []
    const capture = Logger.make((options) => {
      lines.push(formatLogLine({ ...options, annotations: options.fiber.getRef(References.CurrentLogAnnotations) }))
    })
    let logged!: () => void
    const promiseLogged = new Promise<void>((resolve) => {
      logged = resolve
    })
    const promise: PromisePlugin = {
      id: "promise-logger",
      setup(ctx) {
        ctx.log("hello from promise", { n: 1 })
        logged()
      },
    }
    const effect: EffectPlugin = {
      id: "effect-logger",
      effect: (ctx) => ctx.log("hello from effect", { answer: "forty two" }),
    }
    const directory = tempDir()
    const host = HostLayer({
      database: tempDb(),
      config: { data: {}, directory },
      plugins: [
        { source: "inline:promise", plugin: promise },
        { source: "inline:effect", plugin: effect },
      ],
    }).pipe(
      Layer.provideMerge(Logger.layer([capture])),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Info")),
    )
    // The Promise flavour's line is forked: wait until the logger has it (or the host is torn down).
    return Effect.promise(() => promiseLogged).pipe(
      Effect.andThen(Effect.yieldNow),
      Effect.provide(host),
      Effect.andThen(
        Effect.sync(() => {
          expect(lines.find((l) => l.includes("hello from promise"))).toMatch(
            /INFO .*hello from promise plugin=promise-logger n=1/,
          )
          expect(lines.find((l) => l.includes("hello from effect"))).toMatch(
            /INFO .*hello from effect plugin=effect-logger answer="forty two"/,
          )
        }),
      ),
    )
  })
})
