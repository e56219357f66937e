import type { EffectPlugin, EffectSession, PromisePlugin, PromiseSession } from "@opencode-ai/plugin"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Session } from "../src/session/session.ts"
import { hostLayer } from "./support/host.ts"
import { tempDir } from "./support/tmp.ts"

let promise!: PromiseSession
let effect!: EffectSession
const promisePlugin: PromisePlugin = {
  id: "inputs-promise",
  setup(ctx) {
    promise = ctx.session
  },
}
const effectPlugin: EffectPlugin = {
  id: "inputs-effect",
  effect: (ctx) =>
    Effect.sync(() => {
      effect = ctx.session
    }),
}
const plugins = [
  { source: "inline:inputs-promise", plugin: promisePlugin },
  { source: "inline:inputs-effect", plugin: effectPlugin },
]

/** The messages stored for a session: a refused input must add none. */
const stored = (sessionID: string) =>
  Effect.gen(function* () {
    return (yield* (yield* Session).messages(sessionID)).data.length
  })

layer(hostLayer({ plugins }), { excludeTestServices: true })(
  "plugin session inputs are decoded with the plugin package's SessionInput Schemas",
  (it) => {
    it.effect("a wrong input is Session.InvalidInputError naming the field, in both flavours, and stores nothing", () =>
      Effect.gen(function* () {
        const { id: sessionID } = yield* effect.create({ directory: tempDir("oc2-inputs-") })
        // Each case: the input as a plugin without types might pass it, and the field the refusal names.
        const cases: Array<readonly [string, (s: EffectSession) => Effect.Effect<unknown, unknown>, string]> = [
          ["prompt without a session", (s) => s.prompt({ sessionID: 5 as never, text: "x" }), "sessionID"],
          ["prompt with empty text", (s) => s.prompt({ sessionID, text: "" }), "text"],
          [
            "synthetic with a string resume",
            (s) => s.synthetic({ sessionID, text: "n", resume: "yes" as never }),
            "resume",
          ],
          ["messages in a third order", (s) => s.messages({ sessionID, order: "sideways" as never }), "order"],
          ["messages with a string limit", (s) => s.messages({ sessionID, limit: "9" as never }), "limit"],
          ["prune of nothing", (s) => s.prune({ sessionID, types: [] }), "types"],
          ["prune of an unknown type", (s) => s.prune({ sessionID, types: ["text" as never] }), "types"],
          ["correct without a message", (s) => s.message.update({ sessionID, text: "t" } as never), "messageID"],
          ["remove an item without its id", (s) => s.item.remove({ sessionID, messageID: "msg_x" } as never), "itemID"],
          ["create with a numeric title", (s) => s.create({ title: 1 as never }), "title"],
        ]
        for (const [name, call, field] of cases) {
          const refused = yield* Effect.flip(call(effect))
          expect(refused, name).toMatchObject({ _tag: "Session.InvalidInputError", field })
          // The Promise flavour rejects with the same plain error.
          const rejected = yield* Effect.promise(() => {
            const run = (call as unknown as (s: PromiseSession) => Promise<unknown>)(promise)
            return run.then(
              () => undefined,
              (error: unknown) => error,
            )
          }).pipe(Effect.orElseSucceed(() => undefined))
          expect(rejected, name).toMatchObject({ _tag: "Session.InvalidInputError", field })
        }
        expect(yield* stored(sessionID)).toBe(0)
        // An optional field given as undefined is absent, as a plugin spreading its own options writes it.
        const admitted = yield* effect.synthetic({ sessionID, text: "note", description: undefined, resume: false })
        expect(admitted.id).toMatch(/^msg_/)
      }),
    )
  },
)
