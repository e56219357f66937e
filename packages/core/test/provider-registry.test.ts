import { Effect, Exit, Layer, Logger } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { afterEach } from "vitest"
import { Config, type ConfigShape } from "../src/config/config.ts"
import { Providers } from "../src/provider/registry.ts"
import { Execution } from "../src/turn/execution.ts"
import type { AssistantMessage } from "../src/domain/message.ts"
import { Session } from "../src/session/session.ts"
import { hostLayer } from "./support/host.ts"
import { tempDir } from "./support/tmp.ts"

const saved = { ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY, OPENAI_API_KEY: process.env.OPENAI_API_KEY }
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

const providers = (config: ConfigShape) =>
  Effect.gen(function* () {
    return yield* Providers
  }).pipe(Effect.provide(Providers.layer.pipe(Layer.provide(Config.layer(config)))))

describe("the provider registry", () => {
  it.effect("offers anthropic and openai without config when their key variable is set, with catalog limits", () =>
    Effect.gen(function* () {
      delete process.env.ANTHROPIC_API_KEY
      delete process.env.OPENAI_API_KEY
      const none = yield* providers({ data: {}, directory: tempDir() })
      expect(none.list().map((p) => p.id)).toEqual(["offline"])
      // Without their variable they are not offered, and using one says which variable to set.
      expect(none.check({ providerID: "anthropic", id: "claude-sonnet-4-5" })).toBe(
        'provider "anthropic" needs an API key: set ANTHROPIC_API_KEY (or provider.anthropic.apiKey in opencode.json)',
      )
      expect(none.check({ providerID: "openai", id: "gpt-5" })).toBe(
        'provider "openai" needs an API key: set OPENAI_API_KEY (or provider.openai.apiKey in opencode.json)',
      )

      process.env.ANTHROPIC_API_KEY = "sk-ant-test"
      process.env.OPENAI_API_KEY = "sk-openai-test"
      const both = yield* providers({ data: {}, directory: tempDir() })
      const listed = both.list()
      expect(listed.map((p) => [p.id, p.type, p.source])).toEqual([
        ["offline", "offline", "builtin"],
        ["anthropic", "anthropic", "env"],
        ["openai", "openai", "env"],
      ])
      expect(JSON.stringify(listed)).not.toContain("sk-ant-test")
      expect(both.limit({ providerID: "anthropic", id: "claude-sonnet-4-5" })).toEqual({
        context: 200_000,
        output: 64_000,
      })
      expect(both.check({ providerID: "openai", id: "gpt-5" })).toBeUndefined()
      expect(both.check({ providerID: "openai", id: "nope" })).toBe('provider "openai" has no model "nope"')
      const client = yield* both.client({ providerID: "anthropic", id: "claude-sonnet-4-5" })
      expect(client.endpoint).toBe("api.anthropic.com:443")
    }),
  )

  it.effect("names the missing key's variable for every provider, at admission and when a turn would use it", () =>
    Effect.gen(function* () {
      // The conventional anthropic variable is set, but the config names its own one.
      process.env.ANTHROPIC_API_KEY = "sk-ant-test"
      delete process.env.OPENAI_API_KEY
      const dir = tempDir()
      writeFileSync(
        join(dir, "opencode.json"),
        JSON.stringify({
          provider: {
            openai: { models: { "gpt-next": {} } },
            anthropic: { apiKey: "{env:OC2_TEST_ANTHROPIC_KEY}" },
            local: { baseURL: "http://127.0.0.1:9/v1", apiKey: "{env:OC2_TEST_LOCAL_KEY}" },
            both: { baseURL: "http://127.0.0.1:9/v1", apiKey: "{env:OC2_TEST_A}", headers: { x: "{env:OC2_TEST_B}" } },
            open: { baseURL: "http://127.0.0.1:9/v1" },
          },
        }),
      )
      const registry = yield* providers(yield* Config.load(dir, {}))
      const problem = (providerID: string, id: string) =>
        Effect.gen(function* () {
          const checked = registry.check({ providerID, id })
          // The turn's client refuses with the same words, so a default model fails its turn naming it too.
          const exit = yield* Effect.exit(registry.client({ providerID, id }))
          expect(Exit.isFailure(exit)).toBe(checked !== undefined)
          if (checked !== undefined) expect(JSON.stringify(exit)).toContain(JSON.stringify(checked).slice(1, -1))
          return checked
        })
      // Configured without a key, and the conventional variable unset.
      expect(yield* problem("openai", "gpt-next")).toBe(
        'provider "openai" needs an API key: set OPENAI_API_KEY (or provider.openai.apiKey in opencode.json)',
      )
      // `{env:VAR}` is what the config asked for: its variable is named, not the conventional one.
      expect(yield* problem("anthropic", "claude-sonnet-4-5")).toBe(
        'provider "anthropic" needs the environment variable OC2_TEST_ANTHROPIC_KEY, which is not set',
      )
      expect(yield* problem("local", "any")).toBe(
        'provider "local" needs the environment variable OC2_TEST_LOCAL_KEY, which is not set',
      )
      expect(yield* problem("both", "any")).toBe(
        'provider "both" needs the environment variables OC2_TEST_A, OC2_TEST_B, which are not set',
      )
      // An openai-compatible server may need no key at all; an id that is no provider stays unknown.
      expect(yield* problem("open", "any")).toBeUndefined()
      expect(registry.check({ providerID: "nope", id: "x" })).toBe('unknown provider "nope"')
      expect(registry.check({ providerID: "toString", id: "x" })).toBe('unknown provider "toString"')
    }),
  )

  it.effect("merges configured models and limits over the catalog and applies retries and timeout", () =>
    Effect.gen(function* () {
      const registry = yield* providers({
        data: {
          provider: {
            anthropic: {
              baseURL: "http://127.0.0.1:9/v1",
              apiKey: "k",
              retries: 0,
              timeout: 1234,
              models: { "claude-next": { limit: { context: 1000, output: 100 } } },
            },
            local: { baseURL: "http://127.0.0.1:8/v1" },
          },
        },
        directory: tempDir(),
      })
      const anthropic = registry.list().find((p) => p.id === "anthropic")!
      expect(anthropic).toMatchObject({
        type: "anthropic",
        source: "config",
        retries: 0,
        timeout: 1234,
        baseURL: "http://127.0.0.1:9/v1",
      })
      expect(registry.limit({ providerID: "anthropic", id: "claude-next" })).toEqual({ context: 1000, output: 100 })
      expect(registry.check({ providerID: "anthropic", id: "claude-haiku-4-5" })).toBeUndefined()
      // An openai-compatible entry listing no models takes any model id.
      expect(registry.list().find((p) => p.id === "local")).toMatchObject({
        type: "openai-compatible",
        anyModel: true,
        retries: 4,
        timeout: 600_000,
      })
      expect(registry.check({ providerID: "local", id: "whatever" })).toBeUndefined()
    }),
  )

  it.effect("refuses an openai-compatible entry without baseURL when the config is loaded", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileSync(join(dir, "opencode.json"), JSON.stringify({ provider: { local: { models: { m: {} } } } }))
      const exit = yield* Effect.exit(Config.load(dir, {}))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(JSON.stringify(exit)).toContain('provider \\"local\\" (openai-compatible) needs a baseURL')
    }),
  )

  // Live: the host runs a turn, on the real clock.
  it.live("reports an unset {env:VAR} at start, and a turn that needs it fails naming it", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      writeFileSync(
        join(dir, "opencode.json"),
        `{ "model": "local/m", "provider": { "local": { "baseURL": "http://127.0.0.1:9/v1", "apiKey": "{env:OC2_TEST_UNSET_KEY}" } } }`,
      )
      const config: ConfigShape = yield* Config.load(dir, {})
      expect(config.unsetEnv).toEqual([{ name: "OC2_TEST_UNSET_KEY", path: ["provider", "local", "apiKey"] }])

      const logged: Array<string> = []
      const capture = Logger.make(({ message }) => {
        logged.push(String(Array.isArray(message) ? message.join(" ") : message))
      })
      yield* Effect.gen(function* () {
        yield* Providers
      }).pipe(
        Effect.provide(
          Providers.layer.pipe(Layer.provide(Config.layer(config)), Layer.provide(Logger.layer([capture]))),
        ),
      )
      expect(logged.join("\n")).toContain(
        "{env:OC2_TEST_UNSET_KEY} at provider.local.apiKey names an unset environment variable",
      )

      const directory = tempDir()
      const items = yield* Effect.gen(function* () {
        const session = yield* Session
        const execution = yield* Execution
        const info = yield* session.create({ directory })
        yield* execution.prompt({ sessionID: info.id, prompt: { text: "hello" } })
        yield* execution.wait(info.id)
        return (yield* session.messages(info.id)).data
      }).pipe(
        Effect.provide(
          hostLayer({ directory, config: config.data, ...(config.unsetEnv ? { unsetEnv: config.unsetEnv } : {}) }),
        ),
      )
      const answer = items[1] as AssistantMessage
      expect(answer.error?.message).toBe(
        'provider "local" needs the environment variable OC2_TEST_UNSET_KEY, which is not set',
      )
    }),
  )
})
