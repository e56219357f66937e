/**
 * The small command framework the CLI is built on: a command declares its flags (with help text), its
 * positional arguments and a `run` function; `parseCommand` turns argv into typed values with
 * `node:util` `parseArgs` (strict: unknown flags are usage errors) and answers `--help`.
 *
 * Exit codes: 0 success, 1 a failure the user can act on (`CommandError`: unknown session, busy, server
 * unreachable...), 2 a usage error (`UsageError`: unknown command or flag, missing or malformed value).
 */
import type { LogLevel } from "effect"
import { parseArgs } from "node:util"

export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2
/** A run stopped with Ctrl-C (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130

/** The command line is wrong: unknown command or flag, missing argument, malformed value. Exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError"
  constructor(
    message: string,
    /** The command whose usage is printed with the message. */
    readonly command?: AnyCommand,
  ) {
    super(message)
  }
}

/**
 * The command was understood but failed in a way the user can act on. `tag` is the HTTP error `_tag`
 * (`SessionNotFoundError`, `SessionBusyError`...) when the failure is one of the API's typed errors, so
 * local and `--attach` runs report the same thing. Exit 1.
 */
export class CommandError extends Error {
  override readonly name = "CommandError"
  constructor(
    message: string,
    readonly tag?: string,
  ) {
    super(message)
  }
}

/** Where a command writes, and what it may read of its environment. */
export interface Io {
  readonly env: Record<string, string | undefined>
  readonly cwd: string
  /** Writes text to stdout as is. */
  write(text: string): void
  /** Writes a line to stdout. */
  out(line?: string): void
  /** Writes a line to stderr. */
  err(line: string): void
  /** Writes text to stderr as is (streamed reasoning); default: `err` per call. */
  errWrite?(text: string): void
  /** Replaces the current stderr line (progress display); only meaningful when `stderrIsTTY`. */
  status(text: string): void
  readonly stderrIsTTY: boolean
  /** Least severe log level written to stderr (`--log-level`, `--print-logs`); default warnings and errors. */
  readonly logLevel?: LogLevel.LogLevel
}

const pending = new Set<Promise<void>>()

const isBrokenPipe = (cause: unknown) => (cause as NodeJS.ErrnoException | undefined)?.code === "EPIPE"

/**
 * The reader of stdout went away (`opencode2 run ... | head`): nothing more can be delivered, so the
 * process ends at once and quietly (status 0, as the reader took what it wanted) instead of printing a
 * stack trace for every later write.
 */
const readerGone = () => process.exit(0)

let guarded = false
/** Broken-pipe errors reported later, as events of the stream, end the process the same way. */
const guard = (stream: NodeJS.WriteStream) => {
  if (guarded) return
  guarded = true
  stream.on("error", (cause) => {
    if (isBrokenPipe(cause)) readerGone()
    else throw cause
  })
}

/** Writes and remembers the write until the stream has taken it (see `flushed`). */
const send = (stream: NodeJS.WriteStream, text: string) => {
  if (stream === process.stdout) guard(stream)
  const written = new Promise<void>((resolve, reject) => {
    try {
      stream.write(text, () => resolve())
    } catch (cause) {
      reject(cause)
    }
  }).catch((cause: unknown) => {
    if (isBrokenPipe(cause) && stream === process.stdout) readerGone()
    throw cause
  })
  pending.add(written)
  void written.then(
    () => pending.delete(written),
    () => pending.delete(written),
  )
}

/**
 * Resolves once every write made through `processIo` has been handed to the OS. `process.exit` does not
 * wait for a pipe to drain, so `opencode2 openapi | consumer` would otherwise get a truncated document.
 */
export const flushed = async () => {
  while (pending.size > 0) await Promise.all([...pending])
}

export const processIo = (env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Io => ({
  env,
  cwd,
  write: (text) => send(process.stdout, text),
  out: (line = "") => send(process.stdout, `${line}\n`),
  err: (line) => send(process.stderr, `${line}\n`),
  errWrite: (text) => send(process.stderr, text),
  status: (text) => send(process.stderr, `\r\x1b[2K${text}`),
  stderrIsTTY: process.stderr.isTTY === true,
})

export interface Flag {
  readonly type: "string" | "boolean"
  readonly multiple?: boolean
  readonly short?: string
  /** Placeholder shown in help (`--port N`). */
  readonly value?: string
  readonly description: string
}

type FlagValue<F extends Flag> = F["type"] extends "boolean"
  ? boolean
  : F["multiple"] extends true
    ? Array<string>
    : string
export type Values<F extends Record<string, Flag>> = { readonly [K in keyof F]?: FlagValue<F[K]> }

export interface Positional {
  readonly name: string
  readonly description: string
  readonly required?: boolean
  /** Takes every remaining argument (only the last positional). */
  readonly variadic?: boolean
}

export interface Command<F extends Record<string, Flag> = Record<string, Flag>> {
  /** Full name as typed after `opencode2` (`"session prune"`). */
  readonly name: string
  readonly summary: string
  /** Usage synopsis after the name (`"ID | --all [--older-than DAYS]"`). */
  readonly synopsis: string
  /** More explanation printed under the usage in `--help`. */
  readonly details?: ReadonlyArray<string>
  readonly flags: F
  readonly positionals: ReadonlyArray<Positional>
  run(input: { readonly flags: Values<F>; readonly args: ReadonlyArray<string> }, io: Io): Promise<number>
}

/** A command of any flag shape (the command table holds them all). */
export type AnyCommand = Command<any>

export const defineCommand = <const F extends Record<string, Flag>>(command: Command<F>): Command<F> => command

export const usageLine = (command: AnyCommand) =>
  `usage: opencode2 ${command.name}${command.synopsis ? ` ${command.synopsis}` : ""}`

/** The `--help` text of a command. */
export const helpText = (command: AnyCommand): string => {
  const lines = [usageLine(command), "", command.summary]
  if (command.details?.length) lines.push("", ...command.details)
  const rows: Array<[string, string]> = [
    ...command.positionals.map((p): [string, string] => [p.variadic ? `${p.name}...` : p.name, p.description]),
    ...Object.entries(command.flags as Record<string, Flag>).map(([name, flag]): [string, string] => [
      `${flag.short ? `-${flag.short}, ` : ""}--${name}${flag.value ? ` ${flag.value}` : ""}`,
      `${flag.description}${flag.multiple ? " (repeatable)" : ""}`,
    ]),
    ["-h, --help", "Show this help"],
  ]
  const width = Math.max(...rows.map(([left]) => left.length))
  lines.push("", "Arguments and options:", ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`))
  return `${lines.join("\n")}\n`
}

/** `--help` was asked for. */
export class HelpRequested {
  constructor(readonly command: AnyCommand) {}
}

/** Parses `argv` (after the command name) against the command's flags and positionals. */
export const parseCommand = <F extends Record<string, Flag>>(
  command: Command<F>,
  argv: ReadonlyArray<string>,
): { flags: Values<F>; args: ReadonlyArray<string> } | HelpRequested => {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {
    help: { type: "boolean", short: "h" },
  }
  for (const [name, flag] of Object.entries(command.flags as Record<string, Flag>)) {
    options[name] = {
      type: flag.type,
      ...(flag.multiple ? { multiple: true } : {}),
      ...(flag.short ? { short: flag.short } : {}),
    }
  }
  let parsed: { values: Record<string, unknown>; positionals: Array<string> }
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true })
  } catch (cause) {
    throw new UsageError(describeParseError(cause), command)
  }
  if (parsed.values.help === true) return new HelpRequested(command)
  const { help: _, ...flags } = parsed.values
  const args = parsed.positionals
  const required = command.positionals.filter((p) => p.required).length
  const variadic = command.positionals.some((p) => p.variadic)
  if (args.length < required) {
    throw new UsageError(`missing ${command.positionals[args.length]!.name}`, command)
  }
  if (!variadic && args.length > command.positionals.length) {
    throw new UsageError(`unexpected argument "${args[command.positionals.length]}"`, command)
  }
  return { flags: flags as Values<F>, args }
}

/** parseArgs' messages mention internals ("To specify a positional argument..."); keep the first sentence. */
const describeParseError = (cause: unknown) => {
  const message = cause instanceof Error ? cause.message : String(cause)
  const code = (cause as { code?: string }).code
  const option = /'(-[^']*)'/.exec(message)?.[1]
  const name = option?.split(" ")[0]?.replace(/,$/, "")
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && name) return `unknown option ${name}`
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && name) {
    return /does not take/.test(message) ? `option ${name} does not take a value` : `option ${name} needs a value`
  }
  return message.split(". ")[0]!
}

/** An integer flag value within bounds, or a usage error naming the flag. */
export const integerFlag = (
  command: AnyCommand,
  flag: string,
  raw: string | undefined,
  bounds: { readonly min: number; readonly max?: number },
): number | undefined => {
  if (raw === undefined) return undefined
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(value) || value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
    const range = bounds.max !== undefined ? `${bounds.min}..${bounds.max}` : `>= ${bounds.min}`
    throw new UsageError(`invalid value for --${flag}: "${raw}" (expected an integer ${range})`, command)
  }
  return value
}

/** A non-negative number flag value (decimals allowed), or a usage error naming the flag. */
export const numberFlag = (command: AnyCommand, flag: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined
  const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isFinite(value)) {
    throw new UsageError(`invalid value for --${flag}: "${raw}" (expected a non-negative number)`, command)
  }
  return value
}

/** An `http(s)://` URL flag value, or a usage error. */
export const urlFlag = (command: AnyCommand, flag: string, raw: string | undefined): string | undefined => {
  if (raw === undefined) return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(
      `invalid value for --${flag}: "${raw}" (expected a URL such as http://127.0.0.1:4096)`,
      command,
    )
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`invalid value for --${flag}: "${raw}" (expected an http:// or https:// URL)`, command)
  }
  return raw.replace(/\/+$/, "")
}
