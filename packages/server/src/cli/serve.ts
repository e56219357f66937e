import { Context, Effect, Layer } from "effect"
import { Listening, serverLayer } from "../server.ts"
import { databasePath, loadConfig } from "./backend.ts"
import { defineCommand, EXIT_OK, integerFlag } from "./command.ts"
import { CommandError } from "./command.ts"
import { configIdentity, findRunning, register } from "./registration.ts"

export const DEFAULT_PORT = 4096

/**
 * Resolves once the process receives SIGINT or SIGTERM. The listeners stay: the same signal often comes
 * more than once (Ctrl-C reaches every process of the terminal's group, and launchers such as `npm start`
 * forward it too), and a repeat must not kill the process in the middle of its clean stop.
 */
export const termination = () =>
  new Promise<NodeJS.Signals>((resolve) => {
    process.on("SIGINT", resolve)
    process.on("SIGTERM", resolve)
  })

/** `opencode2 serve`: the host and its HTTP API, until SIGINT/SIGTERM. */
export const serve = defineCommand({
  name: "serve",
  summary: "Start the host and serve its HTTP API until SIGINT or SIGTERM.",
  synopsis: "[--hostname HOST] [--port N] [--db PATH] [--no-resume] [--cors ORIGIN]...",
  details: [
    "Prints `opencode2 listening on http://HOST:PORT` on stdout once it accepts requests, then the database",
    "file and the web client's address on stderr. One server per database: a second `serve` on a database",
    "a running server uses is refused, naming that server (stop it, or pass another --db).",
    "OPENCODE_SERVER_PASSWORD turns on HTTP Basic auth (user `opencode`); binding a non-loopback",
    "address without it is refused. OPENCODE_CONFIG names the config file; OPENCODE_DB the database.",
  ],
  flags: {
    hostname: { type: "string", value: "HOST", description: "Interface to bind (default 127.0.0.1)" },
    port: { type: "string", value: "N", description: `Port (default ${DEFAULT_PORT}; 0 picks a free one)` },
    db: {
      type: "string",
      value: "PATH",
      description: "Database file (default OPENCODE_DB, else $XDG_DATA_HOME/opencode2/opencode.db)",
    },
    "no-resume": {
      type: "boolean",
      description: "Do not resume sessions left running by a previous process (config server.autoResume)",
    },
    cors: { type: "string", multiple: true, value: "ORIGIN", description: 'Allow a browser origin ("*" for any)' },
  },
  positionals: [],
  async run({ flags }, io): Promise<number> {
    const port = integerFlag(serve, "port", flags.port, { min: 0, max: 65535 }) ?? DEFAULT_PORT
    const config = await loadConfig(io)
    const password = io.env.OPENCODE_SERVER_PASSWORD || undefined
    const stopped = termination()
    const database = databasePath(flags.db, io)
    // Two hosts on one database would both resume the same sessions and race on their turns.
    const running = await findRunning(database)
    if (running) {
      throw new CommandError(
        `another server is already using ${running.database}: pid ${running.pid}, ${running.url}` +
          `${running.directory ? ` (started in ${running.directory})` : ""}. Stop it first, use it ` +
          "(`opencode2 run --attach URL`, or open its URL in a browser), or pass --db PATH for another database.",
        "ServerAlreadyRunningError",
      )
    }
    const layer = serverLayer({
      port,
      ...(flags.hostname ? { hostname: flags.hostname } : {}),
      database,
      config,
      ...(flags["no-resume"] ? { autoResume: false } : {}),
      ...(password ? { password } : {}),
      ...(flags.cors?.length ? { cors: flags.cors } : {}),
      ...(io.logLevel ? { logLevel: io.logLevel } : {}),
    })
    // The server is a layer, up for the scope: until a signal, then stopped as its scope closes.
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { url } = Context.get(yield* Layer.build(layer), Listening)
          // Other CLI processes on this database go through this server while it runs (see registration.ts).
          yield* Effect.acquireRelease(
            Effect.sync(() => register(database, url, { directory: io.cwd, config: configIdentity(config.path) })),
            (unregister) => Effect.sync(unregister),
          )
          io.out(`opencode2 listening on ${url}`)
          io.err(`database ${database}`)
          io.err(`open ${url} in a browser for the web client`)
          yield* Effect.promise(() => stopped)
        }),
      ),
    )
    return EXIT_OK
  },
})
