import type { ConfigData } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Context, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type OpenAIServer, startOpenAIServer } from "../../../core/test/support/openai-server.ts"
import { OpenStreams } from "../../src/http/open-streams.ts"
import { Listening, type ServerOptions, serverLayer } from "../../src/server.ts"

/** The typed HttpApi client of the whole API (`client["v2.session"].create(...)`). */
export type ApiClient = HttpApiClient.ForApi<typeof Api>

/**
 * A real server for a test file, as a layer: `serverLayer` on 127.0.0.1 with a free port, its database
 * and its own location in a temporary directory (removed when the layer is released), and the HttpApi
 * client for it. Typed errors come back as the declared `Schema.TaggedError`s.
 */
export class TestApi extends Context.Service<
  TestApi,
  {
    readonly url: string
    /** The temporary directory: the server's own location and its config directory. */
    readonly directory: string
    readonly database: string
    readonly client: ApiClient
    /** Raw fetch against the server (path relative to its URL), for what a typed client cannot send. */
    fetch(path: string, init?: RequestInit): Promise<Response>
    /** How many event streams the server has open right now. */
    openStreams(): number
  }
>()("@opencode-ai/server/test/TestApi") {}

export interface TestApiOptions extends Partial<Omit<ServerOptions, "config" | "database" | "directory">> {
  readonly config?: ConfigData
}

const temporary = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "oc2-api-"))),
  (directory) => Effect.sync(() => rmSync(directory, { recursive: true, force: true })),
)

/** `TestApi` over a server started with `options` (title generation off, as in `startTestServer`). */
export const testApiLayer = (options: TestApiOptions = {}): Layer.Layer<TestApi, unknown> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const directory = yield* temporary
      const database = join(directory, "opencode.db")
      const home = join(directory, "global-config")
      mkdirSync(home)
      const { config, ...rest } = options
      const server = serverLayer({
        port: 0,
        ...rest,
        directory,
        database,
        // Title generation is off: its background rename would add events tests do not expect.
        config: { data: { title: { auto: false }, ...config }, directory, home },
      })
      const api = Layer.effect(
        TestApi,
        Effect.gen(function* () {
          const { url } = yield* Listening
          const streams = yield* OpenStreams
          const client = yield* HttpApiClient.make(Api, { baseUrl: url })
          return {
            url,
            directory,
            database,
            client,
            fetch: (path: string, init?: RequestInit) => fetch(`${url}${path}`, init),
            openStreams: () => streams.size,
          }
        }),
      )
      return api.pipe(Layer.provide(server), Layer.provide(FetchHttpClient.layer))
    }),
  )

/** The client of the test's server. */
export const apiClient = Effect.gen(function* () {
  return (yield* TestApi).client
})

/** A scripted OpenAI-compatible model server (core's test double) for the test file, closed with the layer. */
export class ScriptedModel extends Context.Service<ScriptedModel, OpenAIServer>()(
  "@opencode-ai/server/test/ScriptedModel",
) {
  static readonly layer = Layer.effect(
    ScriptedModel,
    Effect.acquireRelease(
      Effect.promise(() => startOpenAIServer()),
      (model) => Effect.promise(() => model.close()),
    ),
  )
}

/**
 * `TestApi` over a server whose options depend on the scripted model (its URL in the provider config),
 * with the model kept available to the tests.
 */
export const testApiWithModel = (
  options: (model: OpenAIServer) => TestApiOptions,
): Layer.Layer<TestApi | ScriptedModel, unknown> =>
  Layer.unwrap(
    Effect.gen(function* () {
      return testApiLayer(options(yield* ScriptedModel))
    }),
  ).pipe(Layer.provideMerge(ScriptedModel.layer))
