import { Cause, Layer, Logger, type LogLevel, References } from "effect"

/**
 * Logs as human lines on stderr — `12:03:04.567 WARN  message key=value` — never on stdout, where
 * commands write their output (`opencode2 run` prints only the answer there).
 */

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const
export type LogLevelName = (typeof LOG_LEVELS)[number]

const LEVELS: Record<LogLevelName, LogLevel.LogLevel> = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" }

/** `--log-level` / `OPENCODE_LOG_LEVEL` text to a level; undefined when it names none. */
export const parseLogLevel = (text: string): LogLevel.LogLevel | undefined => LEVELS[text.toLowerCase() as LogLevelName]

const show = (value: unknown) => {
  if (typeof value === "string") return /[\s="]/.test(value) ? JSON.stringify(value) : value
  if (value instanceof Error) return JSON.stringify(value.message)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** One log entry as a line: time, level, message parts, annotations as `key=value`, and the cause. */
export const formatLogLine = (options: {
  readonly date: Date
  readonly logLevel: LogLevel.LogLevel
  readonly message: unknown
  readonly annotations?: Readonly<Record<string, unknown>>
  readonly cause?: Cause.Cause<unknown>
}) => {
  const time = options.date.toISOString().slice(11, 23)
  const parts = (Array.isArray(options.message) ? options.message : [options.message]).map((part) =>
    typeof part === "string" ? part : show(part),
  )
  const fields = Object.entries(options.annotations ?? {}).map(([key, value]) => `${key}=${show(value)}`)
  const cause = options.cause && options.cause.reasons.length > 0 ? [Cause.pretty(options.cause)] : []
  return [time, options.logLevel.toUpperCase().padEnd(5), ...parts, ...fields, ...cause].join(" ")
}

/** Writes each entry as one human line to stderr. */
export const stderrLogger = Logger.make((options) => {
  process.stderr.write(
    `${formatLogLine({ ...options, annotations: options.fiber.getRef(References.CurrentLogAnnotations) })}\n`,
  )
})

/** The stderr logger in place of the default one, at `level` and above. */
export const LogLayer = (level: LogLevel.LogLevel) =>
  Layer.mergeAll(Logger.layer([stderrLogger]), Layer.succeed(References.MinimumLogLevel, level))
