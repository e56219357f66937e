import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { existsSync } from "node:fs"
import { startServer } from "../server.ts"
import { databasePath, loadConfig, sdkCaller } from "./backend.ts"
import { CommandError, defineCommand, EXIT_OK, type Io } from "./command.ts"
import { findRunning } from "./registration.ts"
import { target, targetFlags } from "./session.ts"

/** The statuses with something to stop: a turn running, retrying, waiting for an answer, or suspended. */
const STOPPABLE = new Set(["busy", "retrying", "waiting", "suspended"])

/**
 * A server to send the interrupt to: `--attach URL`, else the one registered for the database, else one
 * started in this process over that database (resuming nothing) for the time of the command. The host does
 * the interrupting in every case, so a suspended claim left by a killed `run` is ended the same way a live
 * turn is: its open asks rejected, the claim released.
 */
const serverFor = async (
  flags: { readonly attach?: string; readonly db?: string },
  io: Io,
): Promise<{ url: string; stop(): Promise<void> }> => {
  if (flags.attach !== undefined) return { url: flags.attach, stop: async () => {} }
  const path = databasePath(flags.db, io)
  const running = await findRunning(path)
  if (running) return { url: running.url, stop: async () => {} }
  if (path !== ":memory:" && !existsSync(path))
    throw new CommandError(`no database at ${path} (pass --db PATH or set OPENCODE_DB)`)
  const server = await startServer({
    hostname: "127.0.0.1",
    port: 0,
    database: path,
    config: await loadConfig(io),
    autoResume: false,
    ...(io.logLevel ? { logLevel: io.logLevel } : {}),
  })
  return { url: server.url, stop: () => server.stop() }
}

/**
 * `opencode2 session interrupt ID`: stops the session's turn, as Ctrl-C in `run` or
 * `POST /api/session/:id/interrupt` do; the way out of a session left `waiting` by a `run` that was killed.
 */
export const sessionInterrupt = defineCommand({
  name: "session interrupt",
  summary: "Stop a session's turn: a running one, one waiting for an answer, or one left suspended.",
  synopsis: "ID [--attach URL | --db PATH]",
  details: [
    "Its pending permission asks and questions are rejected, the turn ends `interrupted`, and the session is",
    "idle again. Prints `interrupted ID (was STATUS)`.",
    "Errors: an unknown id is SessionNotFoundError; a session with no turn to stop (idle) is",
    "SessionNotRunningError. Nothing is changed then.",
  ],
  flags: { ...targetFlags },
  positionals: [{ name: "ID", description: "The session", required: true }],
  async run({ flags, args }, io): Promise<number> {
    const sessionID = args[0]!
    const server = await serverFor(target(sessionInterrupt, flags), io)
    try {
      const password = io.env.OPENCODE_SERVER_PASSWORD || undefined
      const api = createOpencodeClient({ baseUrl: server.url, ...(password ? { password } : {}) }).v2
      const call = sdkCaller(server.url)
      const tagged = (error: unknown): never => {
        if (error instanceof CommandError && error.tag && !error.message.includes(error.tag))
          throw new CommandError(`${error.message} (${error.tag})`, error.tag)
        throw error
      }
      const before = (await call(api.session.get({ sessionID })).catch(tagged)).data
      if (!STOPPABLE.has(before.status))
        throw new CommandError(
          `session ${sessionID} is not running (status ${before.status}): nothing to interrupt (SessionNotRunningError)`,
          "SessionNotRunningError",
        )
      const result = await api.session.interrupt({ sessionID })
      if (result.error !== undefined) await call(Promise.resolve(result)).catch(tagged)
      io.out(`interrupted ${sessionID} (was ${before.status})`)
      return EXIT_OK
    } finally {
      await server.stop()
    }
  },
})
