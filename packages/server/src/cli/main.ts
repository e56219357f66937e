#!/usr/bin/env bun
/**
 * `opencode2 serve`: starts the host and its HTTP API. A minimal entry point; flags:
 *
 *   --port N          port (default 4096; 0 picks a free one)
 *   --hostname HOST   interface (default 127.0.0.1; non-loopback needs OPENCODE_SERVER_PASSWORD)
 *   --db PATH         database file (default OPENCODE_DB, else $XDG_DATA_HOME/opencode2/opencode.db)
 *   --cors ORIGIN     allow a browser origin (repeatable; "*" for any)
 *   --no-resume       do not resume sessions left running by a previous process
 *
 * Prints `opencode2 listening on http://HOST:PORT` once ready; stops cleanly on SIGINT/SIGTERM.
 */
import { Config, resolveDatabasePath } from "@opencode-ai/core"
import { Effect } from "effect"
import { parseArgs } from "node:util"
import { startServer } from "../server.ts"

const usage = "usage: opencode2 serve [--port N] [--hostname HOST] [--db PATH] [--cors ORIGIN]... [--no-resume]"

export const main = async (argv: ReadonlyArray<string>, env: Record<string, string | undefined> = process.env) => {
  const [command, ...rest] = argv
  if (command !== "serve") {
    console.error(usage)
    return 2
  }
  const { values } = parseArgs({
    args: [...rest],
    options: {
      port: { type: "string" },
      hostname: { type: "string" },
      db: { type: "string" },
      cors: { type: "string", multiple: true },
      "no-resume": { type: "boolean" },
    },
    strict: true,
  })
  const port = values.port === undefined ? 4096 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`invalid --port ${values.port}`)
    return 2
  }
  const config = await Effect.runPromise(Config.load(process.cwd(), env))
  const password = env.OPENCODE_SERVER_PASSWORD || undefined
  const server = await startServer({
    port,
    ...(values.hostname ? { hostname: values.hostname } : {}),
    database: resolveDatabasePath(values.db, env),
    config,
    ...(values["no-resume"] ? { autoResume: false } : {}),
    ...(password ? { password } : {}),
    ...(values.cors?.length ? { cors: values.cors } : {}),
  })
  console.log(`opencode2 listening on ${server.url}`)
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once("SIGINT", stop)
    process.once("SIGTERM", stop)
  })
  await server.stop()
  return 0
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error))
      process.exit(1)
    },
  )
}
