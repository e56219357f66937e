import type { ConfigData } from "@opencode-ai/core"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import { join } from "node:path"
import { afterAll } from "vitest"
import { type RunningServer, type ServerOptions, startServer } from "../../src/server.ts"
import { tempDir } from "./tmp.ts"

export interface TestServer {
  readonly server: RunningServer
  readonly url: string
  /** The SDK client (`client.v2.*` for the operations; `subscribe(client)` for the streams). */
  readonly client: OpencodeClient
  /** `client.v2`. */
  readonly api: OpencodeClient["v2"]
  /** The temporary directory: the server's own location and its config directory. */
  readonly directory: string
  readonly database: string
  /** Raw fetch against the server (path relative to its URL). */
  fetch(path: string, init?: RequestInit): Promise<Response>
  stop(): Promise<void>
}

export interface TestServerOptions extends Partial<Omit<ServerOptions, "config">> {
  readonly config?: ConfigData
  /** The global config directory (commands, skills); default one inside the test's directory. */
  readonly home?: string
}

const running = new Set<TestServer>()
afterAll(async () => {
  for (const server of running) await server.stop()
})

/** A real server on 127.0.0.1, a free port and a temporary SQLite file, with an SDK client for it. */
export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const directory = options.database ? join(options.database, "..") : tempDir()
  const database = options.database ?? join(directory, "opencode.db")
  const { config, home, ...rest } = options
  const server = await startServer({
    port: 0,
    // The server's own location (where requests that name none work) is the test's directory, never
    // the directory the tests run in.
    directory,
    ...rest,
    database,
    // Title generation is off unless a test asks for it: its background rename would add events and
    // requests that tests counting them do not expect.
    config: { data: { title: { auto: false }, ...config }, directory, home: home ?? join(directory, "global-config") },
  })
  const client = createOpencodeClient({
    baseUrl: server.url,
    ...(options.password ? { password: options.password } : {}),
  })
  const test: TestServer = {
    server,
    url: server.url,
    client,
    api: client.v2,
    directory,
    database,
    fetch: (path, init) => fetch(`${server.url}${path}`, init),
    stop: async () => {
      running.delete(test)
      await server.stop()
    },
  }
  running.add(test)
  return test
}

/** JSON request options for raw fetch. */
export const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
})
