import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { PluginHost } from "../src/plugin/host.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage, Message } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { seen as effectSeen } from "./fixtures/plugins/recorder-effect.ts"
import { seen as promiseSeen } from "./fixtures/plugins/recorder-promise.ts"
import { hostLayer, testHost } from "./support/host.ts"
import { tempDir } from "./support/tmp.ts"

const fixture = (name: string) => join(import.meta.dirname, "fixtures", "plugins", name)

describe("plugins loaded from config", () => {
  it.live("a Promise and an Effect plugin observe prompt and context and call session operations", () => {
    const host = testHost({
      config: { plugin: [fixture("recorder-promise.ts"), fixture("recorder-effect.ts")] },
    })
    return Effect.gen(function* () {
      const result = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const plugins = yield* PluginHost
        const info = yield* session.create({ title: "plugged", directory: host.directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hello plugins" } })
        yield* execution.wait(info.id)
        return { statuses: plugins.list(), items: (yield* session.messages(info.id)).data }
      }).pipe(Effect.provide(host.layer))
      expect(result.statuses).toEqual([
        { id: "recorder-promise", source: fixture("recorder-promise.ts"), status: "loaded", flavour: "promise" },
        { id: "recorder-effect", source: fixture("recorder-effect.ts"), status: "loaded", flavour: "effect" },
      ])
      // The prompt hook ran before admission and its edit is what was stored (and what the next hook saw).
      expect(promiseSeen.prompts).toEqual(["hello plugins"])
      expect(effectSeen.prompts).toEqual(["hello plugins [edited by prompt hook]"])
      const [user, answer] = result.items as [Message, AssistantMessage]
      expect(user).toMatchObject({ type: "user", text: "hello plugins [edited by prompt hook]" })

      // The context hook saw host-built system parts with origins and the transcript as model messages.
      const context = promiseSeen.contexts[0]!
      expect(context.system[0]).toMatchObject({
        type: "text",
        id: "host:default",
        origin: { type: "host", name: "default" },
      })
      expect(context.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "hello plugins [edited by prompt hook]" }] },
      ])
      expect(promiseSeen.lookups[0]).toEqual({
        status: "busy",
        count: 1,
        missing: { _tag: "Session.NotFoundError", sessionID: "ses_missing", message: "Session ses_missing not found" },
      })
      // The second plugin saw the first plugin's added part, with the host-assigned origin (not the spoofed one).
      expect(effectSeen.contextSystems[0]).toContainEqual({
        id: "recorder",
        origin: { type: "plugin", pluginID: "recorder-promise" },
      })
      expect(effectSeen.lookups[0]).toEqual({
        title: "plugged",
        missing: { _tag: "Session.MessageNotFoundError", messageID: "msg_nope" },
      })

      // The context edit shaped the request (the offline provider echoes what it received) ...
      expect(answer.content[0]).toMatchObject({ type: "text", text: "You said: REDACTED BY CONTEXT HOOK" })
      // ... but never reached storage: only the model's echo of it is stored, as the model's own reply.
      const stored = result.items.filter((m) => m.type !== "assistant")
      expect(JSON.stringify(stored)).not.toContain("REDACTED")

      expect(promiseSeen.disposed).toBe(1)
    })
  })

  it.live("a plugin that fails to load is reported with its error, and the others still load", () =>
    Effect.gen(function* () {
      const statuses = yield* Effect.gen(function* () {
        return (yield* PluginHost).list()
      })
      expect(statuses[0]).toMatchObject({ status: "failed", error: expect.stringContaining("not a plugin") })
      expect(statuses[1]).toMatchObject({
        source: "./does-not-exist.ts",
        status: "failed",
        error: expect.stringContaining("cannot import"),
      })
      expect(statuses[2]).toMatchObject({ source: "no-such-package-anywhere", status: "failed" })
      expect(statuses[3]).toMatchObject({ id: "thrower", status: "loaded" })
    }).pipe(
      Effect.provide(
        hostLayer({
          config: {
            plugin: [
              fixture("not-a-plugin.ts"),
              "./does-not-exist.ts",
              "no-such-package-anywhere",
              fixture("thrower.ts"),
            ],
          },
        }),
      ),
    ),
  )

  it.live("a package name is looked up from the config directory's node_modules, through its exports", () => {
    const directory = tempDir()
    const pkg = join(directory, "node_modules", "@oc2-test", "packaged")
    mkdirSync(join(pkg, "dist"), { recursive: true })
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({ name: "@oc2-test/packaged", type: "module", exports: { ".": { default: "./dist/main.js" } } }),
    )
    writeFileSync(join(pkg, "dist", "main.js"), 'export default { id: "packaged", setup() {} }\n')
    const host = testHost({ directory, config: { plugin: ["@oc2-test/packaged"] } })
    return Effect.gen(function* () {
      const statuses = yield* Effect.gen(function* () {
        return (yield* PluginHost).list()
      }).pipe(Effect.provide(host.layer))
      expect(statuses).toEqual([{ id: "packaged", source: "@oc2-test/packaged", status: "loaded", flavour: "promise" }])
    })
  })

  it.live(
    "a throwing hook fails that turn with a recorded typed error; the session stays usable; others are unaffected",
    () => {
      const host = testHost({ config: { plugin: [fixture("thrower.ts")] } })
      return Effect.gen(function* () {
        const result = yield* Effect.gen(function* () {
          const session = yield* Session
          const execution = yield* Execution
          const a = yield* session.create({ directory: host.directory })
          const b = yield* session.create({ directory: host.directory })
          yield* execution.prompt({ sessionID: a.id, prompt: { text: "please explode" } })
          yield* execution.prompt({ sessionID: b.id, prompt: { text: "calm" } })
          yield* execution.wait(a.id)
          yield* execution.wait(b.id)
          const statusAfterFailure = (yield* session.get(a.id)).status
          yield* execution.prompt({ sessionID: a.id, prompt: { text: "all good now" } })
          yield* execution.wait(a.id)
          return {
            statusAfterFailure,
            a: (yield* session.messages(a.id)).data,
            b: (yield* session.messages(b.id)).data,
            claim: session.sync.claimed(a.id),
          }
        })
        expect(result.statusAfterFailure).toBe("idle")
        expect(result.claim).toBeUndefined()
        const failed = result.a[1] as AssistantMessage
        // The recorded failure names the plugin and the hook.
        expect(failed.error).toEqual({
          type: "unknown",
          name: "Plugin.HookError",
          message: "kaboom",
          pluginID: "thrower",
          hook: "context",
        })
        expect((result.a[3] as AssistantMessage).content[0]).toMatchObject({ text: "You said: all good now" })
        expect((result.b[1] as AssistantMessage).error).toBeUndefined()
      }).pipe(Effect.provide(host.layer))
    },
  )
})
