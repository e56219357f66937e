import { type ConfigData, Database } from "@opencode-ai/core"
import type { Plugin } from "@opencode-ai/plugin"
import {
  createOpencodeClient,
  type EventsOptions,
  type EventStream,
  type OpencodeClient,
  type SessionV2Info,
  subscribe,
  type V2Event,
} from "@opencode-ai/sdk/v2"
import { copyFileSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { type RunningServer, startServer } from "../server.ts"
import { type ScriptedModel, type ScriptedModelServer, startScriptedModel } from "./scripted-model.ts"

/**
 * A plugin for the test host: a module path, `file:` URL or installed package name (loaded by the host's
 * own plugin loader, as `opencode.json` would; relative paths and names resolve from `process.cwd()`), a
 * plugin object, or a function returning one, called at every (re)start so the plugin starts from fresh
 * state as it would in a new process. Wrap it as `{ plugin, transcript: "any" }` to grant it the right to
 * correct and retract every message, not only its own (as `{ "path", "transcript" }` does in config).
 */
export type TestPlugin = PluginSource | { readonly plugin: PluginSource; readonly transcript?: "own" | "any" }

/** Where a test plugin comes from: a module (path, URL, package name), an object, or a factory. */
export type PluginSource = string | URL | Plugin | (() => Plugin)

export interface TestHostOptions {
  readonly plugins?: ReadonlyArray<TestPlugin>
  /**
   * Host configuration (`opencode.json` shape). The scripted model is added as provider `testkit` and is
   * the default model unless `model` names another.
   */
  readonly config?: ConfigData
  /** The directory sessions work in (tools are confined to it). Default: a fresh temporary directory. */
  readonly directory?: string
}

export interface RestartOptions {
  /**
   * `true`: drop the host as a SIGKILL would (nothing more reaches the database, no graceful stop), then
   * start a new one on the same database file; the claim of a running turn stays and the new host resumes
   * it. `false` (default): a graceful stop first (the claim still stays, as `opencode2 serve` on SIGTERM).
   */
  readonly crash?: boolean
}

export interface TestHost {
  /**
   * The typed SDK client's operations for the current host (`createOpencodeClient({ baseUrl }).v2`: flat
   * parameters, `{ data }` envelopes, typed `{ error }` bodies). The port is kept across restarts.
   */
  readonly client: OpencodeClient["v2"]
  /** The client `createOpencodeClient` returned, for `subscribe` / `sessionEvents` from `@opencode-ai/sdk/v2`. */
  readonly sdk: OpencodeClient
  /** The scripted model every request of this host goes to. */
  readonly model: ScriptedModel
  /** `http://127.0.0.1:PORT` of the current host. */
  readonly url: string
  readonly directory: string
  /** The SQLite file; it survives `restart`. */
  readonly database: string
  /** Creates a session in `directory` and returns it. */
  session(input?: { readonly title?: string; readonly agent?: string }): Promise<SessionV2Info>
  /** Stops the host (gracefully, or as a crash) and starts a new one on the same database and port. */
  restart(options?: RestartOptions): Promise<void>
  /**
   * The live event stream of the current host (`subscribe`: `GET /api/event`, `session.next.*` and
   * `permission.v2.*` events), already subscribed when the promise resolves (its `server.connected`
   * consumed), so nothing a test does afterwards is missed. Ends when that host stops, `signal` aborts or
   * the loop breaks.
   */
  events(options?: EventsOptions): Promise<EventStream<V2Event>>
  /** Stops the host and the scripted model, and removes what the kit created on disk. */
  dispose(): Promise<void>
  [Symbol.asyncDispose](): Promise<void>
}

/** A plugin failed to load; the test would otherwise run against a host without it. */
export class TestHostPluginError extends Error {
  override readonly name = "TestHostPluginError"
}

/** The scripted model's provider id (its model is `testkit/scripted`). */
const PROVIDER = "testkit"
/** The kit's own plugin, which snapshots each finished request; named so no user plugin collides with it. */
const RECORDER = "opencode2-testkit"

/**
 * An empty, migrated database file made once per process; each host starts on a copy of it. Creating and
 * migrating a fresh SQLite file is most of a host's start-up, and every test pays it otherwise.
 */
let template: string | undefined
const emptyDatabase = (path: string) => {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), "opencode2-testkit-template-"))
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, "template.db")
    Database.open(file).client.close()
    template = file
  }
  copyFileSync(template, path)
}

const isPath = (plugin: PluginSource): plugin is string | URL => typeof plugin === "string" || plugin instanceof URL

const isGrant = (plugin: TestPlugin): plugin is Extract<TestPlugin, { readonly plugin: PluginSource }> =>
  typeof plugin === "object" && plugin !== null && !(plugin instanceof URL) && "plugin" in plugin

/** Every test plugin as its source and transcript rights. */
const normalise = (plugins: ReadonlyArray<TestPlugin>) =>
  plugins.map((entry) =>
    isGrant(entry)
      ? { source: entry.plugin, transcript: entry.transcript ?? "own" }
      : { source: entry, transcript: "own" as const },
  )

/** Paths resolve against the test's working directory, package names from there too (not from the host's directory). */
const toPath = (plugin: string | URL) => {
  const text = plugin instanceof URL ? plugin.href : plugin
  if (text.startsWith("file:")) return fileURLToPath(text)
  if (isAbsolute(text)) return text
  if (text.startsWith(".")) return resolve(process.cwd(), text)
  return Bun.resolveSync(text, process.cwd())
}

/**
 * Starts a whole opencode2 host in this process - real SQLite file, real plugins, HTTP on a free loopback
 * port, the real SDK - with a scripted model as its default provider.
 *
 * ```ts
 * const host = await createTestHost({ plugins: [myPlugin] })
 * const session = await host.session()
 * host.model.reply("hello")
 * await host.client.session.prompt({ sessionID: session.id, prompt: { text: "hi" } })
 * await host.client.session.wait({ sessionID: session.id })
 * expect(host.model.requests[0]!.system.map((part) => part.origin)).toContainEqual({ type: "plugin", pluginID: "mine" })
 * await host.dispose()
 * ```
 */
export const createTestHost = async (options: TestHostOptions = {}): Promise<TestHost> => {
  const made = mkdtempSync(join(tmpdir(), "opencode2-testkit-"))
  const directory = options.directory ? resolve(options.directory) : realpathSync(made)
  const database = join(made, "opencode.db")
  const plugins = normalise(options.plugins ?? [])
  let scripted: ScriptedModelServer | undefined
  let running: RunningServer | undefined
  let client: OpencodeClient | undefined
  let disposed: Promise<void> | undefined

  const config = (baseURL: string): ConfigData => {
    const user = options.config ?? {}
    return {
      // Off unless the test's config names it: a title request would take one of the scripted replies.
      title: { auto: false },
      ...user,
      model: user.model ?? `${PROVIDER}/scripted`,
      provider: { ...user.provider, [PROVIDER]: { type: "openai-compatible", baseURL, models: { scripted: {} } } },
      plugin: [
        ...(user.plugin ?? []),
        ...plugins.flatMap(({ source, transcript }) =>
          isPath(source) ? [transcript === "own" ? toPath(source) : { path: toPath(source), transcript }] : [],
        ),
      ],
    }
  }

  const start = async (port: number) => {
    const model = scripted!
    const server = await startServer({
      port,
      database,
      // The global config directory is the kit's own, so a developer's own commands and skills stay out.
      config: { data: config(model.baseURL), directory, home: join(made, "config") },
      plugins: [
        ...plugins.flatMap(({ source, transcript }, index) => {
          if (isPath(source)) return []
          const plugin = typeof source === "function" ? source() : source
          return [{ source: `testkit:${plugin?.id ?? index}`, plugin, transcript }]
        }),
        // Last, so its context callback sees the request after every plugin shaped it.
        {
          source: "testkit:recorder",
          plugin: { id: RECORDER, setup: (ctx) => void ctx.session.hook("context", model.record) },
        },
      ],
      logLevel: "Error",
    })
    running = server
    client = createOpencodeClient({ baseUrl: server.url })
    const { data } = await client.v2.plugin.list()
    const failed = (data?.data ?? []).filter((status) => status.status === "failed")
    if (failed.length > 0) {
      throw new TestHostPluginError(
        failed.map((status) => `plugin ${status.source} failed to load: ${status.error}`).join("\n"),
      )
    }
  }

  const cleanup = async () => {
    await running?.stop().catch(() => undefined)
    await scripted?.close().catch(() => undefined)
    rmSync(made, { recursive: true, force: true })
  }

  try {
    emptyDatabase(database)
    scripted = startScriptedModel()
    await start(0)
  } catch (cause) {
    await cleanup()
    throw cause
  }

  const current = () => {
    if (disposed || !running || !client) throw new Error("the test host was disposed")
    return { server: running, client }
  }

  const host: TestHost = {
    get client() {
      return current().client.v2
    },
    get sdk() {
      return current().client
    },
    model: scripted.model,
    get url() {
      return current().server.url
    },
    directory,
    database,
    session: async (input = {}) => {
      const { data, error } = await current().client.v2.session.create({ ...input, location: { directory } })
      if (!data) throw new Error(`session.create failed: ${JSON.stringify(error)}`)
      return data.data
    },
    restart: async (restart = {}) => {
      const { server } = current()
      running = undefined
      await (restart.crash ? server.crash() : server.stop())
      // Same port, so a client a test kept (and `host.url`) still reaches the host.
      await start(server.port)
    },
    events: async (events = {}) => {
      const stream = await subscribe(current().client, events)
      // The stream iterates one iterator: `server.connected` is taken off it here, the test reads the rest.
      const first = await stream[Symbol.asyncIterator]().next()
      if (first.done) throw new Error("the event stream ended before it connected")
      return stream
    },
    dispose: () => (disposed ??= cleanup()),
    [Symbol.asyncDispose]: () => host.dispose(),
  }
  return host
}
