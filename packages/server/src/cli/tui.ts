import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import type { TuiConnection } from "@opencode-ai/tui"
import { realpathSync } from "node:fs"
import { defineCommand, EXIT_FAILURE, EXIT_USAGE, type Io, UsageError, urlFlag } from "./command.ts"
import { findRunning, register } from "./registration.ts"

// The host (server and core) is loaded only once the TUI asks to connect, after its first frame is drawn.
const backend = () => import("./backend.ts")

/**
 * `opencode2` / `opencode2 tui`: the terminal UI on the current directory. The host runs in this process
 * on serve's defaults (the same database, this directory's opencode.json), unless a `serve` already holds
 * that database (then the TUI attaches to it) or `--attach URL` names a server. Attaching is always said
 * in the status line, and a server whose directory or config is not this directory's is named at start:
 * its config, plugins and MCP servers are the ones that apply, not this directory's.
 */
export const tui = defineCommand({
  name: "tui",
  summary: "Open the terminal UI on the current directory (the default command).",
  synopsis: "[--attach URL] [--db PATH] [--session ID]",
  details: [
    "Starts the host in this process over the local database (--db, OPENCODE_DB, else",
    "$XDG_DATA_HOME/opencode2/opencode.db) with this directory's opencode.json, on 127.0.0.1 and a free port,",
    "announced beside the database so other commands go through it. When a `serve` already holds that",
    "database the TUI attaches to it instead; --attach URL attaches to a given server (password from",
    "OPENCODE_SERVER_PASSWORD). Needs a terminal: without one, use `run` or `serve` (exit status 2).",
    "Ctrl-C twice or /exit leaves it; ? lists every key (docs/tui.md).",
  ],
  flags: {
    attach: { type: "string", value: "URL", description: "Attach to the server at URL instead of starting one" },
    db: { type: "string", value: "PATH", description: "Database file for the in-process host" },
    session: { type: "string", short: "s", value: "ID", description: "Open this session (default: the newest here)" },
  },
  positionals: [],
  async run({ flags }, io): Promise<number> {
    if (flags.attach !== undefined && flags.db !== undefined)
      throw new UsageError("--db cannot be combined with --attach", tui)
    const attach = urlFlag(tui, "attach", flags.attach)
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      io.err(
        "opencode2: the terminal UI needs a terminal; use `opencode2 run TEXT` for one prompt or `opencode2 serve` for the API",
      )
      return EXIT_USAGE
    }
    // Loaded here, not with the CLI: the other commands never load the terminal's native core. The TUI is
    // part of the repository's CLI and the compiled binary, not of the published server package.
    const loaded = await import("@opencode-ai/tui").catch((cause: unknown) => cause as Error)
    if (loaded instanceof Error) {
      io.err(`opencode2: the terminal UI is not available here (${loaded.message}); use the opencode2 binary`)
      return EXIT_FAILURE
    }
    const { runTui } = loaded
    const directory = realDirectory(io.cwd)
    const password = io.env.OPENCODE_SERVER_PASSWORD || undefined
    const remote = (url: string) => createOpencodeClient({ baseUrl: url, ...(password ? { password } : {}) })
    let stop: () => Promise<void> = async () => {}
    const connect = async (): Promise<TuiConnection> => {
      const { databasePath, loadConfig } = await backend()
      const database = databasePath(flags.db, io)
      const running = attach === undefined ? await findRunning(database) : undefined
      const url = attach ?? running?.url
      if (url !== undefined) {
        const client = remote(url)
        return { client, url, attached: true, notices: await differences(client, directory, io) }
      }
      const config = await loadConfig(io)
      const { startServer } = await import("../server.ts")
      const server = await startServer({
        hostname: "127.0.0.1",
        port: 0,
        database,
        config,
        ...(password ? { password } : {}),
        // The screen is the TUI's: host logs would tear it. `--log-level` still chooses them.
        logLevel: io.logLevel && io.logLevel !== "Warn" ? io.logLevel : "None",
      })
      const unregister = register(database, server.url)
      stop = async () => {
        unregister()
        await server.stop()
      }
      return { client: remote(server.url), url: server.url, attached: false }
    }
    let connecting: Promise<TuiConnection> | undefined
    try {
      return await runTui({
        directory,
        connect: () => (connecting = connect()),
        ...(flags.session ? { sessionID: flags.session } : {}),
      })
    } finally {
      // Left while the host was still starting: it is stopped once started, never left behind.
      await connecting?.catch(() => undefined)
      await stop()
    }
  },
})

const realDirectory = (path: string) => {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** Keys sorted, so two configs compare by content. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  )

/**
 * What differs between the attached server and this directory: the server's own directory, and its
 * config against the one this directory would load. Said at start, never silently ignored.
 */
const differences = async (client: OpencodeClient, directory: string, io: Io): Promise<Array<string>> => {
  const notices: Array<string> = []
  try {
    const location = await client.v2.location.get()
    const serverDirectory = location.data?.directory
    if (serverDirectory && realDirectory(serverDirectory) !== directory)
      notices.push(`attached server runs in ${serverDirectory}, not here: its config, plugins and MCP servers apply`)
    const { loadConfig } = await backend()
    const local = await loadConfig(io).catch(() => undefined)
    const remote = (await client.v2.config.get()).data?.data ?? {}
    // The server answers its config with defaults filled in: compare what this directory's file sets.
    const differing = local?.path
      ? Object.entries(local.data as Record<string, unknown>)
          .filter(([key, value]) => canonical(value) !== canonical((remote as Record<string, unknown>)[key]))
          .map(([key]) => key)
      : []
    if (local?.path && differing.length > 0)
      notices.push(
        `this directory's config ${local.path} is not the attached server's (${differing.join(", ")} differ): it is not used`,
      )
  } catch {
    notices.push("could not compare the attached server's directory and config with this directory's")
  }
  return notices
}
