import { join } from "node:path"
import { afterAll } from "vitest"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
// The app's tests drive a real server; the server depends on the app (it embeds it), so these imports
// go by path rather than by a package dependency that would make the workspace graph cyclic.
import type { ConfigData } from "../../../core/src/config/config.ts"
import { type OpenAIServer, startOpenAIServer } from "../../../core/test/support/openai-server.ts"
import { type RunningServer, startServer } from "../../../server/src/server.ts"
// Temporary directories: one helper for every package's tests, removed when the test file finishes.
import { tempDir } from "../../../core/test/support/tmp.ts"

export { tempDir }

const stops: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined)
})

export interface AppServer {
  readonly server: RunningServer
  readonly url: string
  /** The SDK client (`subscribe(client)` for the streams). */
  readonly client: OpencodeClient
  /** `client.v2`: the operations. */
  readonly api: OpencodeClient["v2"]
  readonly directory: string
  readonly database: string
  /** The scripted OpenAI-compatible model server the host talks to. */
  readonly model: OpenAIServer
}

/**
 * A real `opencode2` server on 127.0.0.1 (temporary SQLite file, a scripted local model) whose `/` is the
 * web client, and an SDK client for setting up and checking state behind the browser's back.
 */
export const startAppServer = async (options: { password?: string; config?: ConfigData } = {}): Promise<AppServer> => {
  const directory = tempDir()
  const database = join(directory, "opencode.db")
  const model = await startOpenAIServer()
  stops.push(() => model.close())
  const server = await startServer({
    port: 0,
    database,
    ...(options.password ? { password: options.password } : {}),
    config: {
      directory,
      data: {
        model: "local/test-model",
        provider: {
          local: { type: "openai-compatible", baseURL: model.url, apiKey: "test", models: { "test-model": {} } },
        },
        ...options.config,
      },
    },
  })
  stops.push(() => server.stop())
  const client = createOpencodeClient({
    baseUrl: server.url,
    ...(options.password ? { password: options.password } : {}),
  })
  return { server, url: server.url, client, api: client.v2, directory, database, model }
}
