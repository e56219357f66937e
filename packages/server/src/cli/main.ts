#!/usr/bin/env bun
/**
 * The `opencode2` command line: `tui` (also with no command), `serve`, `run`, `session list|show|prune`,
 * `db stats|erase`, `openapi`.
 * Each command lives in its own file and declares its flags (see `command.ts`); this file dispatches and
 * turns failures into exit codes: 0 success, 1 failure (message on stderr), 2 usage error (usage on
 * stderr), 130 a `run` stopped with Ctrl-C.
 */
import type { LogLevel } from "effect"
import { VERSION } from "../version.ts"
import {
  type AnyCommand,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_USAGE,
  flushed,
  HelpRequested,
  helpText,
  type Io,
  parseCommand,
  processIo,
  UsageError,
  usageLine,
} from "./command.ts"
/** The command list, loaded when a command other than the terminal UI is asked for. */
type Registry = typeof import("./commands.ts")

const overview = ({ commands, groups }: Registry, group?: string) => {
  const shown = group ? commands.filter((c) => c.name.startsWith(`${group} `)) : commands
  const width = Math.max(...shown.map((c) => c.name.length))
  return [
    group ? `usage: opencode2 ${group} <command> [options]` : "usage: opencode2 <command> [options]",
    "",
    group ? groups[group]! : "The opencode2 host: an HTTP API over sessions and turns, and tools for its database.",
    "",
    "Commands:",
    ...shown.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    `Run \`opencode2 ${group ? `${group} ` : ""}<command> --help\` for a command's arguments and options.`,
    ...(group
      ? []
      : [
          "Global options: --log-level debug|info|warn|error, --print-logs (logs are human lines on stderr).",
          "Environment: OPENCODE_CONFIG, OPENCODE_DB, OPENCODE_SERVER_PASSWORD, OPENCODE_LOG_LEVEL, XDG_CONFIG_HOME, XDG_DATA_HOME.",
        ]),
    "",
  ].join("\n")
}

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help"

/**
 * Finds the command named by the leading arguments; returns it with the rest of argv. The terminal UI
 * (no command, only options, or `tui`) is found without loading the other commands.
 */
const resolve = async (
  argv: ReadonlyArray<string>,
  io: Io,
): Promise<{ command: AnyCommand; rest: ReadonlyArray<string> } | number> => {
  const [first, second, ...more] = argv
  // No command, or only options: the terminal UI (`opencode2 --attach URL` is `opencode2 tui --attach URL`).
  if (first === undefined || (first.startsWith("-") && !isHelp(first) && first !== "--version" && first !== "-v"))
    return { command: (await import("./tui.ts")).tui, rest: argv }
  if (first === "tui") return { command: (await import("./tui.ts")).tui, rest: argv.slice(1) }
  if (first === "--version" || first === "-v" || first === "version") {
    io.out(VERSION)
    return EXIT_OK
  }
  const registry: Registry = await import("./commands.ts")
  const { groups } = registry
  const find = (name: string) => registry.commands.find((command) => command.name === name)
  if (isHelp(first)) {
    // `opencode2 help session prune` is `opencode2 session prune --help`.
    if (second === undefined || second.startsWith("-")) {
      io.write(overview(registry))
      return EXIT_OK
    }
    return await resolve([second, ...more, "--help"], io)
  }
  if (first in groups) {
    if (isHelp(second)) {
      io.write(overview(registry, first))
      return EXIT_OK
    }
    const command = second !== undefined && !second.startsWith("-") ? find(`${first} ${second}`) : undefined
    if (!command) {
      io.err(
        second === undefined
          ? `opencode2 ${first}: missing command`
          : `opencode2 ${first}: unknown command "${second}"`,
      )
      io.err(overview(registry, first).trimEnd())
      return EXIT_USAGE
    }
    return { command, rest: more }
  }
  const command = find(first)
  if (!command) {
    io.err(`opencode2: unknown command "${first}"`)
    io.err(overview(registry).trimEnd())
    return EXIT_USAGE
  }
  return { command, rest: argv.slice(1) }
}

/**
 * Takes the global logging flags out of `argv`: `--log-level LEVEL` (debug, info, warn, error; also
 * `OPENCODE_LOG_LEVEL`) and `--print-logs` (print the host's logs from info up, not only warnings and
 * errors). Logs always go to stderr, never into a command's output.
 */
const globalFlags = async (
  argv: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
): Promise<{ argv: ReadonlyArray<string>; logLevel: LogLevel.LogLevel } | UsageError> => {
  const rest: Array<string> = []
  let named: string | undefined = env.OPENCODE_LOG_LEVEL || undefined
  let print = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      rest.push(...argv.slice(i))
      break
    }
    if (arg === "--print-logs") print = true
    else if (arg === "--log-level") named = argv[++i] ?? ""
    else if (arg.startsWith("--log-level=")) named = arg.slice("--log-level=".length)
    else rest.push(arg)
  }
  if (named === undefined) return { argv: rest, logLevel: print ? "Info" : "Warn" }
  // The core is loaded only when a level is named: the terminal UI's first frame does not wait for it.
  const { LOG_LEVELS, parseLogLevel } = await import("@opencode-ai/core")
  const level = parseLogLevel(named)
  if (!level) return new UsageError(`invalid value for --log-level: "${named}" (expected ${LOG_LEVELS.join(", ")})`)
  return { argv: rest, logLevel: level }
}

/** Runs the command line `argv` (without the executable and script) and resolves to the exit code. */
export const main = async (args: ReadonlyArray<string>, base: Io = processIo()): Promise<number> => {
  const global = await globalFlags(args, base.env)
  if (global instanceof UsageError) {
    base.err(`opencode2: ${global.message}`)
    return EXIT_USAGE
  }
  const { argv } = global
  const io: Io = { ...base, logLevel: global.logLevel }
  const resolved = await resolve(argv, io)
  if (typeof resolved === "number") return resolved
  const { command, rest } = resolved
  try {
    const parsed = parseCommand(command, rest)
    if (parsed instanceof HelpRequested) {
      io.write(helpText(parsed.command))
      return EXIT_OK
    }
    return await command.run(parsed, io)
  } catch (cause) {
    if (cause instanceof UsageError) {
      const target = cause.command ?? command
      io.err(`opencode2 ${target.name}: ${cause.message}`)
      io.err(usageLine(target))
      io.err(`Run \`opencode2 ${target.name} --help\` for details.`)
      return EXIT_USAGE
    }
    io.err(`error: ${cause instanceof Error ? cause.message : String(cause)}`)
    return EXIT_FAILURE
  }
}

const exit = async (code: number) => {
  await flushed()
  process.exit(code)
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(exit, (error: unknown) => {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`)
    return exit(EXIT_FAILURE)
  })
}
