import type { EffectPlugin, EffectSession, PromisePlugin, PromiseSession } from "@opencode-ai/plugin"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PluginHost } from "../src/plugin/host.ts"
import { InvalidInputError } from "../src/domain/error.ts"
import { Session } from "../src/session/session.ts"
import { hostLayer } from "./support/host.ts"
import { tempDir } from "./support/tmp.ts"

/** One plugin of each flavour; each hands out the `ctx.session` the host gave it. */
let promise!: PromiseSession
let effect!: EffectSession
const promisePlugin: PromisePlugin = {
  id: "dir-promise",
  setup(ctx) {
    promise = ctx.session
  },
}
const effectPlugin: EffectPlugin = {
  id: "dir-effect",
  effect: (ctx) =>
    Effect.sync(() => {
      effect = ctx.session
    }),
}
const plugins = [
  { source: "inline:dir-promise", plugin: promisePlugin },
  { source: "inline:dir-effect", plugin: effectPlugin },
]

const bothLoaded = Effect.gen(function* () {
  expect((yield* PluginHost).list().map((s) => s.status)).toEqual(["loaded", "loaded"])
})
const count = Effect.gen(function* () {
  return (yield* (yield* Session).list({ limit: 200 })).data.length
})
const stored = (sessionID: string) =>
  Effect.gen(function* () {
    return (yield* (yield* Session).get(sessionID)).location.directory
  })

// One host for the file: the counts below compare before and after, so earlier tests' sessions do not matter.
layer(hostLayer({ plugins }), { excludeTestServices: true })(
  "a plugin's ctx.session.create applies the session directory rule",
  (it) => {
    it.effect(
      "refuses a relative, missing, non-directory or NUL path with Session.InvalidInputError and stores nothing",
      () =>
        Effect.gen(function* () {
          yield* bothLoaded
          const root = realpathSync(tempDir())
          writeFileSync(join(root, "file.txt"), "x")
          symlinkSync(join(root, "nowhere"), join(root, "dangling"))
          const cases: Array<[string, string]> = [
            ["relative/dir", "is not an absolute path"],
            // Exists relative to the process's working directory, but is still not absolute.
            [".", "is not an absolute path"],
            ["", "is not an absolute path"],
            [join(root, "missing"), "does not exist"],
            [join(root, "dangling"), "does not exist"],
            [join(root, "file.txt"), "is not a directory"],
            [join(root, "file.txt", "below"), "does not exist"],
            [`${root}\u0000x`, "contains a NUL character"],
          ]
          const before = yield* count
          for (const [directory, why] of cases) {
            // Promise flavour: rejects with the plain tagged object.
            const rejected = yield* Effect.promise(() =>
              promise.create({ title: "bad", directory }).then(
                (info) => ({ resolved: info }),
                (error: unknown) => error,
              ),
            )
            expect(rejected, JSON.stringify(directory)).toEqual({
              _tag: "Session.InvalidInputError",
              field: "directory",
              message: `directory ${JSON.stringify(directory)} ${why}`,
            })
            // Effect flavour: fails in the typed error channel with the same error.
            const failed = yield* Effect.flip(effect.create({ title: "bad", directory }))
            expect(failed, JSON.stringify(directory)).toBeInstanceOf(InvalidInputError)
            expect(failed, JSON.stringify(directory)).toMatchObject({
              _tag: "Session.InvalidInputError",
              field: "directory",
              message: `directory ${JSON.stringify(directory)} ${why}`,
            })
            expect(yield* count, JSON.stringify(directory)).toBe(before)
          }
        }),
    )

    it.effect("stores an existing directory as its realpath (symlinks followed, dot segments gone)", () =>
      Effect.gen(function* () {
        yield* bothLoaded
        const root = realpathSync(tempDir())
        const project = join(root, "real", "project")
        mkdirSync(project, { recursive: true })
        symlinkSync(join(root, "real"), join(root, "link"))
        const cases: Array<[string, string]> = [
          [join(root, "link", "project"), project],
          [join(root, "link"), join(root, "real")],
          [`${root}/real/./project/../project/`, project],
          [project, project],
        ]
        const before = yield* count
        for (const [given, expected] of cases) {
          const viaPromise = yield* Effect.promise(() => promise.create({ directory: given }))
          expect(viaPromise.location.directory, given).toBe(expected)
          expect(yield* stored(viaPromise.id), given).toBe(expected)
          const viaEffect = yield* effect.create({ directory: given })
          expect(viaEffect.location.directory, given).toBe(expected)
          expect(yield* stored(viaEffect.id), given).toBe(expected)
        }
        expect(yield* count).toBe(before + cases.length * 2)
      }),
    )

    it.effect("without a directory keeps the default (the host process's working directory)", () =>
      Effect.gen(function* () {
        yield* bothLoaded
        expect((yield* Effect.promise(() => promise.create({ title: "default" }))).location.directory).toBe(
          process.cwd(),
        )
        expect((yield* effect.create()).location.directory).toBe(process.cwd())
      }),
    )
  },
)
