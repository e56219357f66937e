import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Hooks } from "../src/hooks/hooks.ts"
import { hookEdit } from "../src/turn/hook-edit.ts"

// The one place that applies the `prompt` / `synthetic` hooks' edits to an input's text.
describe("hook edits of an input's text", () => {
  it.effect("applies the plugins' edits in order", () =>
    Effect.gen(function* () {
      const hooks = yield* Hooks
      hooks.register("prompt", { pluginID: "a", run: (event) => Effect.sync(() => void (event.text += " [a]")) })
      hooks.register("prompt", { pluginID: "b", run: (event) => Effect.sync(() => void (event.text += " [b]")) })
      const edit = yield* hookEdit(hooks, "prompt", { sessionID: "ses_1", text: "hello" }, 1000)
      assert.deepStrictEqual(edit, { text: "hello [a] [b]" })
    }).pipe(Effect.provide(Hooks.layer)),
  )

  it.effect("a failing callback keeps the original text, even after an earlier edit, and names the plugin", () =>
    Effect.gen(function* () {
      const hooks = yield* Hooks
      hooks.register("synthetic", { pluginID: "a", run: (event) => Effect.sync(() => void (event.text = "edited")) })
      hooks.register("synthetic", { pluginID: "b", run: () => Effect.fail(new Error("boom")) })
      const edit = yield* hookEdit(hooks, "synthetic", { sessionID: "ses_1", origin: "host", text: "notice" }, 1000)
      assert.strictEqual(edit.text, "notice")
      assert.strictEqual(edit.failure?.pluginID, "b")
      assert.strictEqual(edit.failure?.hook, "synthetic")
      assert.strictEqual(edit.failure?.message, "boom")
    }).pipe(Effect.provide(Hooks.layer)),
  )

  it.effect("an edit that leaves no text (empty or not a string) is ignored", () =>
    Effect.gen(function* () {
      const hooks = yield* Hooks
      const dispose = hooks.register("prompt", {
        pluginID: "a",
        run: (event) => Effect.sync(() => void (event.text = "")),
      })
      assert.deepStrictEqual(yield* hookEdit(hooks, "prompt", { sessionID: "ses_1", text: "kept" }, 1000), {
        text: "kept",
      })
      dispose()
      hooks.register("prompt", {
        pluginID: "a",
        run: (event) => Effect.sync(() => void ((event as { text: unknown }).text = 42)),
      })
      assert.deepStrictEqual(yield* hookEdit(hooks, "prompt", { sessionID: "ses_1", text: "kept" }, 1000), {
        text: "kept",
      })
    }).pipe(Effect.provide(Hooks.layer)),
  )
})
