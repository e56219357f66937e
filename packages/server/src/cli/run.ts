import { createOpencodeClient, EventStreamError, type OpencodeClient, type ServerEvent, type SessionInfo } from "@opencode-ai/sdk"
import { startServer } from "../server.ts"
import { databasePath, loadConfig, sdkCaller, unreachable } from "./backend.ts"
import { CommandError, defineCommand, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, type Io, UsageError, urlFlag } from "./command.ts"
import { findRunning } from "./registration.ts"

/** `<providerID>/<modelID>`, as the API expects. */
const MODEL = /^[^/\s]+\/\S.*$/

/** The session's title when `run` creates it: the prompt's first line, shortened. */
const titleFor = (text: string) => {
  const line = text.trim().split("\n")[0]!.replace(/\s+/g, " ")
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

interface Target {
  readonly client: OpencodeClient
  readonly url: string
  stop(): Promise<void>
}

/**
 * `opencode2 run TEXT`: prompts a session and streams the answer's text to stdout as it arrives, then
 * exits when the turn has ended (0 when it completed).
 */
export const run = defineCommand({
  name: "run",
  summary: "Send a prompt to a session and stream the answer's text to stdout until the turn ends.",
  synopsis: "TEXT... [--session ID] [--attach URL] [--db PATH] [--model PROVIDER/MODEL] [--agent NAME]",
  details: [
    "Without --attach, a server is started in this process on 127.0.0.1 (a free port) over the local",
    "database (--db, OPENCODE_DB, else $XDG_DATA_HOME/opencode2/opencode.db) and stopped at the end.",
    "With --attach, the prompt goes to that server (password from OPENCODE_SERVER_PASSWORD).",
    "A new session is created unless --session is given; its id is printed to stderr.",
    "Exit status: 0 when the turn completed, 1 when it failed or a request was refused, 130 on Ctrl-C",
    "(which interrupts the turn).",
  ],
  flags: {
    session: { type: "string", short: "s", value: "ID", description: "Continue this session instead of creating one" },
    attach: { type: "string", value: "URL", description: "Use the server at URL instead of starting one" },
    db: { type: "string", value: "PATH", description: "Database file for the in-process server" },
    model: { type: "string", short: "m", value: "PROVIDER/MODEL", description: "Model for this prompt (default from config)" },
    agent: { type: "string", value: "NAME", description: "Agent for this prompt" },
  },
  positionals: [{ name: "TEXT", description: "The prompt (several words are joined with spaces)", required: true, variadic: true }],
  async run({ flags, args }, io): Promise<number> {
    const text = args.join(" ")
    if (!text.trim()) throw new UsageError("TEXT is empty", run)
    if (flags.attach !== undefined && flags.db !== undefined) throw new UsageError("--db cannot be combined with --attach", run)
    if (flags.model !== undefined && !MODEL.test(flags.model)) {
      throw new UsageError(`invalid value for --model: "${flags.model}" (expected PROVIDER/MODEL, e.g. offline/echo)`, run)
    }
    const attach = urlFlag(run, "attach", flags.attach)
    const target = attach !== undefined ? remote(attach, io) : await inProcess(flags.db, io)
    try {
      return await turn(target, io, {
        text,
        ...(flags.session !== undefined ? { sessionID: flags.session } : {}),
        ...(flags.model !== undefined ? { model: flags.model } : {}),
        ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
      })
    } finally {
      await target.stop()
    }
  },
})

const remote = (url: string, io: Io): Target => {
  const password = io.env.OPENCODE_SERVER_PASSWORD || undefined
  return {
    client: createOpencodeClient({ baseUrl: url, ...(password ? { password } : {}) }),
    url,
    stop: async () => {},
  }
}

/**
 * The server already running on the database (see registration.ts), else a server in this process, on
 * loopback and a free port, that resumes nothing on its own.
 */
const inProcess = async (db: string | undefined, io: Io): Promise<Target> => {
  const running = await findRunning(databasePath(db, io))
  if (running) return remote(running.url, io)
  const config = await loadConfig(io)
  const server = await startServer({
    hostname: "127.0.0.1",
    port: 0,
    database: databasePath(db, io),
    config,
    // A short-lived server must not pick up other sessions' suspended turns.
    autoResume: false,
  })
  return { client: createOpencodeClient({ baseUrl: server.url }), url: server.url, stop: () => server.stop() }
}

interface TurnInput {
  readonly text: string
  readonly sessionID?: string
  readonly model?: string
  readonly agent?: string
}

/** Prompts, then follows the session's live events until the turn that carries the prompt has ended. */
const turn = async (target: Target, io: Io, input: TurnInput): Promise<number> => {
  const { client } = target
  const call = sdkCaller(target.url)

  const session: SessionInfo =
    input.sessionID !== undefined
      ? await call(client.session.get({ path: { sessionID: input.sessionID } }))
      : await call(client.session.create({ body: { title: titleFor(input.text) } }))
  const sessionID = session.id
  io.err(`session ${sessionID}`)

  // Subscribe first, and only prompt once the stream is open: nothing the prompt causes is missed.
  const controller = new AbortController()
  const events = client.events({ sessionID, signal: controller.signal })[Symbol.asyncIterator]()
  let interrupted = false
  const onInterrupt = () => {
    interrupted = true
    void client.session.interrupt({ path: { sessionID } }).catch(() => undefined)
  }
  try {
    try {
      await events.next()
    } catch (cause) {
      throw cause instanceof EventStreamError ? new CommandError(cause.message, cause.error?._tag) : unreachable(target.url, cause)
    }
    const { messageID } = await call(
      client.session.prompt({
        path: { sessionID },
        body: {
          text: input.text,
          ...(input.model !== undefined ? { model: input.model } : {}),
          ...(input.agent !== undefined ? { agent: input.agent } : {}),
        },
      }),
    )
    // A session suspended by a stopped server keeps its claim: the prompt waits behind that turn, so it is
    // continued explicitly (an in-process server resumes nothing on its own; a server may run with
    // --no-resume). Busy means it has just been resumed by someone else, which is as good.
    if (session.status === "suspended") {
      await call(client.session.resume({ path: { sessionID } })).catch((cause: unknown) => {
        if (!(cause instanceof CommandError && cause.tag === "SessionBusyError")) throw cause
      })
    }
    process.on("SIGINT", onInterrupt)

    const output = new TextOutput(io)
    let admitted = false
    let turnID: string | undefined
    for (;;) {
      const next = await events.next()
      if (next.done) throw new CommandError("the event stream ended before the turn finished")
      const event = next.value as ServerEvent & { data: any }
      switch (event.type) {
        case "server.error":
          throw new CommandError(`the server ended the event stream: ${event.data.message}`)
        case "session.deleted":
          throw new CommandError(`session ${sessionID} was deleted`, "SessionNotFoundError")
        case "session.message.admitted":
          if (event.data.message?.id === messageID) admitted = true
          break
        case "session.turn.started":
          if (admitted && turnID === undefined) turnID = event.data.turnID
          break
        case "session.part.delta":
          if (turnID !== undefined && event.data.field === "text") output.delta(event.data.partID, event.data.delta)
          break
        case "session.part.updated":
          if (turnID !== undefined && event.data.part?.type === "text") output.part(event.data.part.id, event.data.part.text)
          break
        case "session.turn.ended": {
          if (turnID === undefined || event.data.turnID !== turnID) break
          output.end()
          if (event.data.outcome === "completed") return EXIT_OK
          if (event.data.outcome === "interrupted" || interrupted) {
            io.err("turn interrupted")
            return interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE
          }
          const error = event.data.error as { name: string; message: string } | undefined
          io.err(`turn failed: ${error ? `${error.name}: ${error.message}` : "unknown error"}`)
          return EXIT_FAILURE
        }
      }
    }
  } finally {
    process.off("SIGINT", onInterrupt)
    controller.abort()
    await events.return?.(undefined).catch(() => undefined)
  }
}

/**
 * Writes the answer's text: deltas as they arrive, a whole part when it was not streamed, a line break
 * between parts and at the end.
 */
class TextOutput {
  private readonly streamed = new Set<string>()
  private current: string | undefined
  private atLineStart = true

  constructor(private readonly io: Io) {}

  private write(partID: string, text: string) {
    if (!text) return
    if (this.current !== undefined && this.current !== partID && !this.atLineStart) this.io.write("\n")
    this.current = partID
    this.streamed.add(partID)
    this.io.write(text)
    this.atLineStart = text.endsWith("\n")
  }

  delta(partID: string, text: string) {
    this.write(partID, text)
  }

  /** A completed text part: printed only when none of it was streamed. */
  part(partID: string, text: string) {
    if (!this.streamed.has(partID)) this.write(partID, text)
  }

  end() {
    if (!this.atLineStart) this.io.write("\n")
    this.atLineStart = true
  }
}
