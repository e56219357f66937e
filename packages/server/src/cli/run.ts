import {
  createOpencodeClient,
  EventStreamError,
  type ModelRef,
  type OpencodeClient,
  type PermissionV2Request,
  type QuestionV2Request as QuestionRequest,
  type SessionV2Info,
  subscribe,
  type V2Event,
} from "@opencode-ai/sdk/v2"
import { realpathSync } from "node:fs"
import { dirname } from "node:path"
import { createInterface } from "node:readline"
import { startServer } from "../server.ts"
import { databasePath, loadConfig, sdkCaller, unreachable } from "./backend.ts"
import {
  CommandError,
  defineCommand,
  EXIT_FAILURE,
  EXIT_INTERRUPTED,
  EXIT_OK,
  type Io,
  UsageError,
  urlFlag,
} from "./command.ts"
import { configIdentity, findRunning, type Registration } from "./registration.ts"
import {
  type Ask,
  askLines,
  contentText,
  diffLines,
  type Style,
  styleFor,
  toolInput,
  toolLine,
  type ToolOutcome,
  usageLine,
} from "./render.ts"

/** `<providerID>/<modelID>`: the model ref `{ providerID, id }` the API takes. */
const MODEL = /^[^/\s]+\/\S.*$/

const modelRef = (value: string): ModelRef => {
  const slash = value.indexOf("/")
  return { providerID: value.slice(0, slash), id: value.slice(slash + 1) }
}

/** The session's title when `run` creates it: the prompt's first line, shortened. */
const titleFor = (text: string) => {
  const line = text.trim().split("\n")[0]!.replace(/\s+/g, " ")
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}

interface Target {
  /** The client the event streams take; `client.v2` has the operations. */
  readonly client: OpencodeClient
  readonly url: string
  stop(): Promise<void>
}

/** The terminal, as far as `run` cares: whether it can ask, and how to read one answer. */
export interface Terminal {
  /** stdin and stderr are terminals: asks are interactive. */
  readonly interactive: boolean
  /** stderr is a terminal: diffs of file changes are shown. */
  readonly tty: boolean
  /** Colours (a terminal, and NO_COLOR unset). */
  readonly styled: boolean
  /** Asks one question on the terminal and resolves with the typed line; `undefined` after Ctrl-C. */
  question(prompt: string): Promise<string | undefined>
  /**
   * Asks for one of `keys` (lower case) and resolves with it as soon as it is pressed, without Enter (raw
   * mode on a terminal); `undefined` after Ctrl-C. Without it, `question` is asked and its first letter taken.
   */
  key?(prompt: string, keys: ReadonlyArray<string>): Promise<string | undefined>
  /** All of stdin as text (the prompt when no TEXT is given). */
  readAll(): Promise<string>
}

const CTRL_C = "\x03"

const processTerminal = (io: Io): Terminal => ({
  interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
  tty: io.stderrIsTTY,
  styled: io.stderrIsTTY && !io.env.NO_COLOR,
  question: (prompt) =>
    new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
      rl.question(prompt, (answer) => {
        rl.close()
        resolve(answer)
      })
      rl.once("SIGINT", () => {
        rl.close()
        process.stderr.write("\n")
        resolve(undefined)
      })
    }),
  key: (prompt, keys) =>
    new Promise((resolve) => {
      const stdin = process.stdin
      process.stderr.write(prompt)
      // Raw mode: each key arrives as typed, and Ctrl-C is a byte here rather than a signal.
      stdin.setRawMode(true)
      stdin.resume()
      const done = (key: string | undefined) => {
        stdin.off("data", onData)
        stdin.setRawMode(false)
        stdin.pause()
        process.stderr.write(`${key ?? "^C"}\n`)
        resolve(key)
      }
      const onData = (chunk: Buffer) => {
        // Only the first meaningful key counts; the rest of the chunk (an Enter typed after it) is dropped.
        for (const char of chunk.toString("utf8")) {
          if (char === CTRL_C) return done(undefined)
          const key = char.toLowerCase()
          if (keys.includes(key)) return done(key)
        }
      }
      stdin.on("data", onData)
    }),
  readAll: () => new Response(Bun.stdin.stream()).text(),
})

/** Ctrl-C at a prompt of `run`: the turn is interrupted and `run` exits 130. */
class PromptInterrupted extends Error {}

/** One key of `keys`, or the first letter of a typed line where single keys are not available. */
const readKey = async (terminal: Terminal, prompt: string, keys: ReadonlyArray<string>) => {
  const key = terminal.key
    ? await terminal.key(prompt, keys)
    : (await terminal.question(prompt))?.trim().toLowerCase().slice(0, 1)
  if (key === undefined) throw new PromptInterrupted()
  return key
}

/** A typed line; Ctrl-C interrupts. */
const readLine = async (terminal: Terminal, prompt: string) => {
  const line = await terminal.question(prompt)
  if (line === undefined) throw new PromptInterrupted()
  return line
}

/**
 * `opencode2 run TEXT`: prompts a session and streams the answer's text to stdout as it arrives, shows
 * its work on stderr (a line per tool call, reasoning dimmed, usage and duration at the end), asks for
 * permissions on a terminal, and exits when the turn has ended (0 when it completed).
 */
export const run = defineCommand({
  name: "run",
  summary:
    "Send a prompt to a session; stream the answer to stdout and the agent's work to stderr until the turn ends.",
  synopsis:
    "[TEXT...] [--session ID | --continue] [--attach URL] [--db PATH] [--model PROVIDER/MODEL] [--agent NAME] [--allow TOOL]... [--yes] [--format text|json]",
  details: [
    "Without TEXT the prompt is read from stdin (echo 'fix the test' | opencode2 run).",
    "Without --attach, a server is started in this process on 127.0.0.1 (a free port) over the local",
    "database (--db, OPENCODE_DB, else $XDG_DATA_HOME/opencode2/opencode.db) and stopped at the end.",
    "When an `opencode2 serve` is already running on that database, run attaches to it (and says so on",
    "stderr), but only if the config file that applies here (opencode.json, found as serve finds it) is the",
    "one that server loaded, unchanged: otherwise it refuses and lists the ways on (restart the server with",
    "this config, --db for a separate database, or --attach to accept the server's config).",
    "With --attach, the prompt goes to that server (password from OPENCODE_SERVER_PASSWORD); its config",
    "applies.",
    "A new session in the current directory is created unless --session or --continue is given; its id is",
    "printed to stderr.",
    "Permissions: on a terminal, each ask is answered with one key, no Enter: o once, a always (the prompt",
    "says what it covers: for a file change, every edit of the session), r reject. Without one,",
    "an ask is rejected with a message unless --allow names its tool (or its kind: read, edit, bash) or",
    "--yes allows everything asked.",
    "Questions (the question tool): on a terminal, chosen by number or typed; without one they are refused",
    "(the tool fails, the turn goes on) unless --yes, which picks each question's first option.",
    "--format json prints every event of the session as one JSON object per line (NDJSON) on stdout.",
    "Exit status: 0 when the turn completed, 1 when it failed, a rejected permission ended it (a reject",
    "without a message) or a request was refused (an unknown --model or --agent creates no session),",
    "130 on Ctrl-C (which interrupts the turn), at a prompt too. A failed tool call is the model's to handle:",
    "not a failure. `opencode2 session interrupt ID` stops a turn a killed run left waiting.",
  ],
  flags: {
    session: { type: "string", short: "s", value: "ID", description: "Continue this session instead of creating one" },
    continue: { type: "boolean", short: "c", description: "Continue the latest session of the current directory" },
    attach: { type: "string", value: "URL", description: "Use the server at URL instead of starting one" },
    db: { type: "string", value: "PATH", description: "Database file for the in-process server" },
    model: {
      type: "string",
      short: "m",
      value: "PROVIDER/MODEL",
      description: "Model for this prompt (default from config)",
    },
    agent: { type: "string", value: "NAME", description: "Agent for this prompt" },
    allow: {
      type: "string",
      multiple: true,
      value: "TOOL",
      description: "Answer asks for this tool or kind (edit, bash...) with once",
    },
    yes: { type: "boolean", short: "y", description: "Answer every ask with once" },
    format: {
      type: "string",
      value: "text|json",
      description: "Output: the answer as text (default) or NDJSON events",
    },
  },
  positionals: [
    { name: "TEXT", description: "The prompt (several words are joined with spaces; default: stdin)", variadic: true },
  ],
  async run({ flags, args }, io): Promise<number> {
    return runWith(flags, args, io, processTerminal(io))
  },
})

type Flags = Parameters<(typeof run)["run"]>[0]["flags"]

/** `run` with an explicit terminal (the command uses the process's). */
export const runWith = async (
  flags: Flags,
  args: ReadonlyArray<string>,
  io: Io,
  terminal: Terminal,
): Promise<number> => {
  const format = flags.format ?? "text"
  if (format !== "text" && format !== "json")
    throw new UsageError(`invalid value for --format: "${format}" (expected text or json)`, run)
  if (flags.attach !== undefined && flags.db !== undefined)
    throw new UsageError("--db cannot be combined with --attach", run)
  if (flags.session !== undefined && flags.continue)
    throw new UsageError("--session cannot be combined with --continue", run)
  if (flags.model !== undefined && !MODEL.test(flags.model)) {
    throw new UsageError(
      `invalid value for --model: "${flags.model}" (expected PROVIDER/MODEL, e.g. offline/echo)`,
      run,
    )
  }
  let text = args.join(" ")
  if (!text.trim() && args.length === 0 && !process.stdin.isTTY) text = await terminal.readAll()
  if (!text.trim()) throw new UsageError("TEXT is empty (give it as arguments or on stdin)", run)
  const attach = urlFlag(run, "attach", flags.attach)
  const target = attach !== undefined ? await attached(attach, io) : await inProcess(flags.db, io)
  try {
    return await turn(target, io, terminal, {
      text,
      format,
      allow: new Set(flags.allow ?? []),
      yes: flags.yes === true,
      continue: flags.continue === true,
      ...(flags.session !== undefined ? { sessionID: flags.session } : {}),
      ...(flags.model !== undefined ? { model: flags.model } : {}),
      ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
    })
  } finally {
    await target.stop()
  }
}

const remote = (url: string, io: Io): Target => {
  const password = io.env.OPENCODE_SERVER_PASSWORD || undefined
  return {
    client: createOpencodeClient({ baseUrl: url, ...(password ? { password } : {}) }),
    url,
    stop: async () => {},
  }
}

/** `--attach URL`: that server, said on stderr, with a note when a config file here is not in play. */
const attached = async (url: string, io: Io): Promise<Target> => {
  const config = await loadConfig(io)
  io.err(`attached to the server at ${url}; session directory ${realCwd(io)}`)
  if (config.path !== undefined)
    io.err(`note: the server's own config applies; ${config.path} is used only if the server loaded it too`)
  return remote(url, io)
}

/**
 * The server already running on the database (see registration.ts), else a server in this process, on
 * loopback and a free port, that resumes nothing on its own.
 *
 * A running server is used only when the config that applies here is the one it loaded (same file, same
 * content): otherwise this directory's plugins, MCP servers and rules would be silently ignored. A second
 * host on the same database is not an option (both would resume the same sessions), so `run` refuses and
 * says how to proceed.
 */
const inProcess = async (db: string | undefined, io: Io): Promise<Target> => {
  const running = await findRunning(databasePath(db, io))
  const config = await loadConfig(io)
  if (running) {
    refuseOtherConfig(running, config.path, io)
    io.err(
      `attached to the server at ${running.url} (pid ${running.pid}${running.directory ? `, started in ${running.directory}` : ""}); session directory ${realCwd(io)}`,
    )
    return remote(running.url, io)
  }
  const server = await startServer({
    hostname: "127.0.0.1",
    port: 0,
    database: databasePath(db, io),
    config,
    // A short-lived server must not pick up other sessions' suspended turns.
    autoResume: false,
    ...(io.logLevel ? { logLevel: io.logLevel } : {}),
  })
  return { client: createOpencodeClient({ baseUrl: server.url }), url: server.url, stop: () => server.stop() }
}

/** Fails when a config file applies here and the running server did not load it (or loaded other content). */
const refuseOtherConfig = (running: Registration, localPath: string | undefined, io: Io) => {
  const local = configIdentity(localPath)
  if (local === undefined) return
  if (running.config?.path === local.path && running.config.sha256 === local.sha256) return
  const theirs = running.config
    ? running.config.path === local.path
      ? `${running.config.path} as it was when the server started (it has changed since)`
      : running.config.path
    : "no config file"
  throw new CommandError(
    [
      `a server is running on this database (pid ${running.pid}, ${running.url}${running.directory ? `, started in ${running.directory}` : ""}) with ${theirs},`,
      `but ${local.path} applies in ${realCwd(io)}: its plugins, MCP servers and rules would be ignored. Either`,
      `  - restart that server so it loads this config (e.g. start \`opencode2 serve\` in ${dirname(local.path)}), or`,
      "  - run against a separate database: opencode2 run --db PATH ..., or",
      `  - use that server with its own config anyway: opencode2 run --attach ${running.url} ...`,
    ].join("\n"),
    "ConfigMismatchError",
  )
}

interface TurnInput {
  readonly text: string
  readonly format: "text" | "json"
  readonly allow: ReadonlySet<string>
  readonly yes: boolean
  readonly continue: boolean
  readonly sessionID?: string
  readonly model?: string
  readonly agent?: string
}

const realCwd = (io: Io) => {
  try {
    return realpathSync(io.cwd)
  } catch {
    return io.cwd
  }
}

/**
 * The config's `model`, when it sets one, must be a model the server can use: checked before a session is
 * created, so a misspelt model fails with nothing stored (the server would otherwise fall back to another
 * model with only a warning in its log).
 */
const checkConfigModel = async (api: Api, call: ReturnType<typeof sdkCaller>) => {
  const config = await call(api.config.get())
  const model = config.data["model"]
  if (typeof model !== "string" || !MODEL.test(model)) return
  const { providerID, id } = modelRef(model)
  const models = (await call(api.model.list())).data
  if (models.some((m) => m.providerID === providerID && m.id === id)) return
  const sameProvider = models.filter((m) => m.providerID === providerID).map((m) => `${m.providerID}/${m.id}`)
  throw new CommandError(
    `the config's model "${model}" is not available: ${
      sameProvider.length > 0
        ? `provider "${providerID}" has ${sameProvider.slice(0, 8).join(", ")}`
        : `no usable provider "${providerID}" (unknown, or its API key is not set)`
    }. Fix "model" in opencode.json, or pass --model PROVIDER/MODEL.`,
    "ModelNotFoundError",
  )
}

/** The newest session whose directory is the current one (sessions store their directory resolved). */
const latestHere = async (api: Api, call: ReturnType<typeof sdkCaller>, io: Io): Promise<SessionV2Info> => {
  const here = realCwd(io)
  const page = await call(api.session.list({ directory: here, order: "desc", limit: 1 }))
  const found = page.data[0]
  if (found) return found
  throw new CommandError(
    `no session in ${here} to continue (run without --continue to start one)`,
    "SessionNotFoundError",
  )
}

type Api = OpencodeClient["v2"]

/** A listed request as an ask (a request made by a tool call names its tool and title). */
const listedAsk = (request: PermissionV2Request): Ask => ({
  id: request.id,
  tool: request.tool ?? request.action,
  action: request.action,
  title: request.title ?? `${request.action} ${request.resources.join(", ")}`,
  resources: request.resources,
  ...(request.save ? { save: request.save } : {}),
  ...(request.metadata ? { metadata: request.metadata } : {}),
})

/** What the stream said about one tool call so far: its name and input arrive before it settles. */
interface Call {
  name?: string
  input?: unknown
}

const parseInput = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Prompts, then follows the session's live events (`subscribe`) until the turn that carries the prompt
 * has ended: `session.next.prompt.admitted` names the prompt's message, the next
 * `session.next.turn.started` is its turn, and `session.next.turn.ended` with that turn id ends the run.
 */
const turn = async (target: Target, io: Io, terminal: Terminal, input: TurnInput): Promise<number> => {
  const api = target.client.v2
  const call = sdkCaller(target.url)
  const started = performance.now()
  const model = input.model !== undefined ? { model: modelRef(input.model) } : {}
  const agent = input.agent !== undefined ? { agent: input.agent } : {}

  if (input.model === undefined && input.sessionID === undefined && !input.continue) await checkConfigModel(api, call)
  const session: SessionV2Info =
    input.sessionID !== undefined
      ? (await call(api.session.get({ sessionID: input.sessionID }))).data
      : input.continue
        ? await latestHere(api, call, io)
        : // The model and agent go with the create, so an unknown one is refused before anything is stored.
          (
            await call(
              api.session.create({
                title: titleFor(input.text),
                location: { directory: realCwd(io) },
                ...model,
                ...agent,
              }),
            )
          ).data
  const sessionID = session.id
  io.err(`session ${sessionID}`)

  // Subscribe first, and only prompt once the stream is connected: nothing the prompt causes is missed.
  const controller = new AbortController()
  let events: AsyncIterator<V2Event>
  try {
    events = (await subscribe(target.client, { sessionID, signal: controller.signal }))[Symbol.asyncIterator]()
  } catch (cause) {
    throw cause instanceof EventStreamError
      ? new CommandError(
          `${cause.message}${(cause.error as { _tag?: string } | undefined)?._tag === "UnauthorizedError" ? " (set OPENCODE_SERVER_PASSWORD)" : ""}`,
          (cause.error as { _tag?: string } | undefined)?._tag,
        )
      : unreachable(target.url, cause)
  }
  let interrupted = false
  const onInterrupt = () => {
    interrupted = true
    void api.session.interrupt({ sessionID }).catch(() => undefined)
  }
  const output =
    input.format === "json" ? new JsonOutput(io) : new TextOutput(io, styleFor(terminal.styled), terminal.tty)
  try {
    const admitted = await call(api.session.prompt({ sessionID, prompt: { text: input.text }, ...model, ...agent }))
    const messageID = admitted.data.id
    // A session suspended by a stopped server keeps its claim: the prompt waits behind that turn, so it is
    // continued explicitly (an in-process server resumes nothing on its own; a server may run with
    // --no-resume). Busy means it has just been resumed by someone else, which is as good.
    if (session.status === "suspended") {
      await call(api.session.resume({ sessionID })).catch((cause: unknown) => {
        if (!(cause instanceof CommandError && cause.tag === "SessionBusyError")) throw cause
      })
    }
    process.on("SIGINT", onInterrupt)

    // Asks already pending (a resumed turn waiting for an answer) are answered like new ones.
    const answered = new Set<string>()
    const answer = async (ask: Ask) => {
      if (answered.has(ask.id)) return
      answered.add(ask.id)
      const reply = await decide(ask, input, terminal, output)
      const result = await api.session.permission.reply({ sessionID, requestID: ask.id, ...reply })
      if (result.error && (result.error as { _tag?: string })._tag !== "PermissionNotFoundError") {
        throw new CommandError(
          `cannot answer ${ask.id}: ${(result.error as { message?: string }).message ?? "refused"}`,
        )
      }
    }
    const pending = await call(api.session.permission.list({ sessionID }))
    for (const request of pending.data) await answer(listedAsk(request))
    // Questions of the `question` tool, pending or new: answered on a terminal, else by --yes, else refused.
    const settledQuestions = new Set<string>()
    const answerQuestion = async (request: QuestionRequest) => {
      if (settledQuestions.has(request.id)) return
      settledQuestions.add(request.id)
      const answers = await chooseAnswers(request, input, terminal, output)
      const result =
        answers === undefined
          ? await api.session.question.reject({ sessionID, requestID: request.id })
          : await api.session.question.reply({ sessionID, requestID: request.id, questionV2Reply: { answers } })
      if (result.error && (result.error as { _tag?: string })._tag !== "QuestionNotFoundError") {
        throw new CommandError(
          `cannot answer ${request.id}: ${(result.error as { message?: string }).message ?? "refused"}`,
        )
      }
    }
    const questions = await call(api.session.question.list({ sessionID }))
    for (const request of questions.data) await answerQuestion(request)

    let delivered = false
    let turnID: string | undefined
    // Asks of this turn by id (for their titles), and the one whose reject without a message ended it.
    const asked = new Map<string, string>()
    let stoppedBy: string | undefined
    // Tool calls by message and call id (a provider's call ids are unique within one answer only).
    const calls = new Map<string, Call>()
    const callOf = (data: { assistantMessageID: string; callID: string }) => {
      const key = `${data.assistantMessageID}/${data.callID}`
      let known = calls.get(key)
      if (!known) calls.set(key, (known = {}))
      return known
    }
    /** A settled call's name and input; read from its message when the stream did not carry them. */
    const describe = async (data: { assistantMessageID: string; callID: string }): Promise<Call> => {
      const known = callOf(data)
      if (known.name !== undefined) return known
      const message = await api.session.message({ sessionID, messageID: data.assistantMessageID })
      const item =
        message.data?.data.type === "assistant"
          ? message.data.data.content.find((i) => i.type === "tool" && i.callID === data.callID)
          : undefined
      if (item?.type === "tool") Object.assign(known, { name: item.name, input: toolInput(item) })
      return known
    }
    for (;;) {
      const next = await events.next()
      if (next.done) throw new CommandError("the event stream ended before the turn finished")
      const event = next.value
      output.event(event)
      if (event.type === "server.error")
        throw new CommandError(`the server ended the event stream: ${event.data.message}`)
      if (event.type === "session.next.deleted")
        throw new CommandError(`session ${sessionID} was deleted`, "SessionNotFoundError")
      if (event.type === "session.next.prompt.admitted") {
        if (event.data.messageID === messageID) delivered = true
        continue
      }
      if (event.type === "session.next.turn.started") {
        if (delivered && turnID === undefined) turnID = event.data.turnID
        continue
      }
      if (event.type === "permission.v2.asked") {
        const data = event.data
        asked.set(data.id, data.title)
        await answer({
          id: data.id,
          tool: data.tool,
          action: data.action,
          title: data.title,
          resources: data.resources,
          ...(data.save ? { save: data.save } : {}),
          ...(data.metadata ? { metadata: data.metadata } : {}),
        })
        continue
      }
      if (event.type === "question.v2.asked") {
        const { timestamp: _, ...request } = event.data
        await answerQuestion(request)
        continue
      }
      if (event.type === "permission.v2.replied") {
        // A child session's reject (an ask inside a `task` call, answered here) ends the child's turn only.
        const own = event.data.sessionID === undefined || event.data.sessionID === sessionID
        if (own && turnID !== undefined && event.data.reply === "reject" && !event.data.message?.trim())
          stoppedBy ??= asked.get(event.data.requestID) ?? event.data.requestID
        continue
      }
      if (event.type === "session.next.tool.input.started") {
        callOf(event.data).name = event.data.name
        continue
      }
      if (event.type === "session.next.tool.input.ended") {
        callOf(event.data).input = parseInput(event.data.text)
        continue
      }
      if (event.type === "session.next.tool.called") {
        Object.assign(callOf(event.data), { name: event.data.tool, input: event.data.input })
        continue
      }
      // Everything below is the answer of the prompt's turn; what came before it is not shown.
      if (turnID === undefined) continue
      switch (event.type) {
        case "session.next.text.delta":
          output.delta(event.data.textID, "text", event.data.delta)
          break
        case "session.next.reasoning.delta":
          output.delta(event.data.reasoningID, "reasoning", event.data.delta)
          break
        case "session.next.text.ended":
          output.whole(event.data.textID, "text", event.data.text)
          break
        case "session.next.reasoning.ended":
          output.whole(event.data.reasoningID, "reasoning", event.data.text)
          break
        case "session.next.tool.success": {
          const { name = "tool", input: args } = await describe(event.data)
          const diff = event.data.structured["diff"]
          output.tool(
            { name, input: args, ok: true, text: contentText(event.data.content) },
            typeof diff === "string" ? diff : undefined,
          )
          break
        }
        case "session.next.tool.failed": {
          const { name = "tool", input: args } = await describe(event.data)
          output.tool({ name, input: args, ok: false, text: event.data.error.message })
          break
        }
        case "session.next.step.ended":
          output.usage(event.data.tokens)
          break
        case "session.next.step.failed":
          output.usage(event.data.tokens)
          break
        case "session.next.turn.ended": {
          if (event.data.turnID !== turnID) break
          // The verdict first, then the usage line, which always closes the output.
          const code = verdict(event.data, interrupted, stoppedBy, output)
          output.end(performance.now() - started)
          return code
        }
      }
    }
  } catch (cause) {
    if (!(cause instanceof PromptInterrupted)) throw cause
    // Ctrl-C at a prompt: the turn is stopped (its open asks are rejected with it), and run ends at once.
    await api.session.interrupt({ sessionID }).catch(() => undefined)
    output.note("turn interrupted")
    output.end(performance.now() - started)
    return EXIT_INTERRUPTED
  } finally {
    process.off("SIGINT", onInterrupt)
    controller.abort()
    await events.return?.(undefined).catch(() => undefined)
  }
}

/**
 * How the turn ended, as a line (none when it completed) and the exit status: 0 completed, 1 failed or
 * stopped by a rejected permission (the work asked for was not done), 130 interrupted with Ctrl-C.
 */
const verdict = (
  ended: { outcome: string; error?: { message: string; name?: string } },
  interrupted: boolean,
  stoppedBy: string | undefined,
  output: Output,
): number => {
  if (ended.outcome === "completed") {
    if (stoppedBy === undefined) return EXIT_OK
    output.note(`turn stopped: permission for ${stoppedBy} was rejected`)
    return EXIT_FAILURE
  }
  if (ended.outcome === "interrupted" || interrupted) {
    output.note("turn interrupted")
    return interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE
  }
  const error = ended.error
  output.note(`turn failed: ${error ? `${error.name ?? "Error"}: ${error.message}` : "unknown error"}`)
  return EXIT_FAILURE
}

/**
 * The answers to a question request, or `undefined` to refuse it: `--yes` picks each question's first
 * option; without a terminal (or with `--format json`) it is refused, so the tool fails and the turn goes
 * on instead of waiting for nobody; on a terminal each question is shown with numbered options and read
 * as numbers (`1`, or `1,3` where several are allowed) or typed text. An empty line refuses.
 */
const chooseAnswers = async (
  request: QuestionRequest,
  input: TurnInput,
  terminal: Terminal,
  output: Output,
): Promise<Array<Array<string>> | undefined> => {
  const headers = request.questions.map((q) => q.header).join(", ")
  if (input.yes) {
    output.note(`answered ${headers} with the first option (--yes)`)
    return request.questions.map((q) => (q.options[0] ? [q.options[0].label] : []))
  }
  if (!terminal.interactive || input.format === "json") {
    output.note(`question ${headers}: refused, there is no terminal to ask on (pass --yes to pick the first options)`)
    return undefined
  }
  const answers: Array<Array<string>> = []
  for (const q of request.questions) {
    output.note(`? ${q.question}`)
    q.options.forEach((option, i) =>
      output.note(`  ${i + 1}. ${option.label}${option.description ? ` - ${option.description}` : ""}`),
    )
    for (;;) {
      const line = (
        await readLine(
          terminal,
          q.multiple ? "Choose (e.g. 1,2), or type an answer: " : "Choose a number, or type an answer: ",
        )
      ).trim()
      if (line === "") return undefined
      const picks = line.split(",").map((part) => Number(part.trim()))
      if (picks.every((n) => Number.isInteger(n) && n >= 1 && n <= q.options.length)) {
        if (picks.length > 1 && !q.multiple) continue
        answers.push([...new Set(picks)].map((n) => q.options[n - 1]!.label))
        break
      }
      // Numbers that name no option (or several for a one-choice question) are asked again, not taken as text.
      if (q.custom === false || /^[\d\s,]+$/.test(line)) continue
      answers.push([line])
      break
    }
  }
  return answers
}

/** How to answer an ask: `--yes` / `--allow`, else the terminal, else a reject that says why. */
const decide = async (
  ask: Ask,
  input: TurnInput,
  terminal: Terminal,
  output: Output,
): Promise<{ reply: "once" | "always" | "reject"; message?: string }> => {
  if (input.yes || input.allow.has(ask.tool) || input.allow.has(ask.action)) {
    output.note(
      `allowed ${ask.title} (${input.yes ? "--yes" : `--allow ${input.allow.has(ask.tool) ? ask.tool : ask.action}`})`,
    )
    return { reply: "once" }
  }
  if (!terminal.interactive || input.format === "json") {
    output.note(
      `permission needed for ${ask.title}: rejected, there is no terminal to ask on (pass --allow ${ask.tool} or --yes to allow it)`,
    )
    return { reply: "reject" }
  }
  output.ask(ask)
  output.note(`  [a]lways allows ${alwaysCovers(ask)} for the rest of this session`)
  for (;;) {
    const key = await readKey(terminal, "Allow? [o]nce, [a]lways, [r]eject: ", ["o", "a", "r", "y", "n"])
    if (key === "o" || key === "y") return { reply: "once" }
    if (key === "a") return { reply: "always" }
    if (key === "r" || key === "n") {
      const why = (await readLine(terminal, "Tell the model why (empty ends the turn): ")).trim()
      return why ? { reply: "reject", message: why } : { reply: "reject" }
    }
  }
}

/**
 * What an `always` answer grants, in words: what the ask's `save` names (every edit for file changes, as
 * the host grants the whole `edit` kind then), else exactly the asked subjects.
 */
const alwaysCovers = (ask: Ask): string => {
  const saved = ask.save ?? ask.resources
  if (saved.includes("*"))
    return ask.action === "edit" ? "every file edit (edit, write, patch)" : `every ${ask.action} request`
  return `${ask.action} of ${saved.join(", ")} (exactly these)`
}

interface Output {
  event(event: V2Event): void
  /** A streamed piece of a text or reasoning item. */
  delta(itemID: string, field: "text" | "reasoning", text: string): void
  /** A text or reasoning item as it ended (shown when nothing of it was streamed). */
  whole(itemID: string, field: "text" | "reasoning", text: string): void
  /** A settled tool call, and the diff of the file change it made. */
  tool(call: ToolOutcome, diff?: string): void
  usage(tokens: { input: number; output: number; reasoning: number } | undefined): void
  note(line: string): void
  ask(ask: Ask): void
  end(elapsedMs: number): void
}

/** `--format json`: every event as one line of JSON on stdout; nothing else there. */
class JsonOutput implements Output {
  constructor(private readonly io: Io) {}
  event(event: V2Event) {
    this.io.write(`${JSON.stringify(event)}\n`)
  }
  delta() {}
  whole() {}
  tool() {}
  usage() {}
  note(line: string) {
    this.io.err(line)
  }
  ask() {}
  end() {}
}

/**
 * The default output: the answer's text on stdout (deltas as they arrive, a whole item when it was not
 * streamed); the work on stderr: reasoning (dimmed), one line per tool call with its outcome (and the
 * diff of a file change on a terminal), asks, and usage with the duration at the end. Each stream's line
 * is ended before the other one is written to, so both read well on one terminal and each stays clean
 * when redirected.
 */
class TextOutput implements Output {
  private readonly streamed = new Set<string>()
  private current: string | undefined
  private readonly open = { out: false, err: false }
  private readonly totals = { input: 0, output: 0, reasoning: 0, seen: false }

  constructor(
    private readonly io: Io,
    private readonly style: Style,
    private readonly diffs: boolean,
  ) {}

  event() {}

  /** Ends the other stream's partial line before writing to `stream`. */
  private switchTo(stream: "out" | "err") {
    const other = stream === "out" ? "err" : "out"
    if (this.open[other]) {
      if (other === "out") this.io.write("\n")
      else this.writeErr("\n")
      this.open[other] = false
    }
  }

  private writeErr(text: string) {
    if (this.io.errWrite) this.io.errWrite(text)
    else this.io.err(text.replace(/\n$/, ""))
  }

  /** A whole line on stderr. */
  private line(text: string) {
    this.switchTo("err")
    if (this.open.err) this.writeErr("\n")
    this.open.err = false
    this.current = undefined
    this.io.err(text)
  }

  private write(itemID: string, field: "text" | "reasoning", text: string) {
    if (!text) return
    const stream = field === "text" ? "out" : "err"
    this.switchTo(stream)
    if (this.current !== undefined && this.current !== itemID && this.open[stream]) {
      if (stream === "out") this.io.write("\n")
      else this.writeErr("\n")
    }
    this.current = itemID
    this.streamed.add(itemID)
    if (stream === "out") this.io.write(text)
    else this.writeErr(this.style.dim(text))
    this.open[stream] = !text.endsWith("\n")
  }

  delta(itemID: string, field: "text" | "reasoning", text: string) {
    this.write(itemID, field, text)
  }

  whole(itemID: string, field: "text" | "reasoning", text: string) {
    if (!this.streamed.has(itemID)) this.write(itemID, field, text)
  }

  tool(call: ToolOutcome, diff?: string) {
    this.line(toolLine(call, this.style))
    if (this.diffs && call.ok && diff !== undefined) {
      for (const line of diffLines(diff, this.style)) this.io.err(line)
    }
  }

  usage(tokens: { input: number; output: number; reasoning: number } | undefined) {
    if (!tokens) return
    this.totals.seen = true
    this.totals.input += tokens.input
    this.totals.output += tokens.output
    this.totals.reasoning += tokens.reasoning
  }

  note(line: string) {
    this.line(line)
  }

  ask(ask: Ask) {
    const lines = askLines(ask, this.style)
    this.line(lines[0]!)
    for (const line of lines.slice(1)) this.io.err(line)
  }

  end(elapsedMs: number) {
    if (this.open.out) this.io.write("\n")
    this.open.out = false
    this.line(this.style.dim(usageLine(this.totals.seen ? this.totals : undefined, elapsedMs)))
  }
}
