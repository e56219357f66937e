import type { PrunableType, SessionV2Info } from "@opencode-ai/sdk/v2"
import { type Backend, withBackend } from "./backend.ts"
import {
  type AnyCommand,
  CommandError,
  defineCommand,
  EXIT_FAILURE,
  EXIT_OK,
  type Flag,
  numberFlag,
  UsageError,
  urlFlag,
} from "./command.ts"
import { formatBytes, progressBar, renderMessage, renderSessionHeader, sessionLines } from "./render.ts"

/** `--attach URL` / `--db PATH`: where a session or db command works. */
export const targetFlags = {
  attach: {
    type: "string",
    value: "URL",
    description: "Use the server at URL (password from OPENCODE_SERVER_PASSWORD)",
  },
  db: {
    type: "string",
    value: "PATH",
    description: "Local database (default OPENCODE_DB, else $XDG_DATA_HOME/opencode2/opencode.db)",
  },
} as const satisfies Record<string, Flag>

/** Checks and normalizes the target flags of `command`. */
export const target = (command: AnyCommand, flags: { readonly attach?: string; readonly db?: string }) => {
  if (flags.attach !== undefined && flags.db !== undefined) {
    throw new UsageError("--db cannot be combined with --attach (the server has its own database)", command)
  }
  const attach = urlFlag(command, "attach", flags.attach)
  return { ...(attach !== undefined ? { attach } : {}), ...(flags.db !== undefined ? { db: flags.db } : {}) }
}

const json = { type: "boolean", description: "Print JSON instead of text" } as const satisfies Flag

const collect = async <A>(items: AsyncIterable<A>) => {
  const out: Array<A> = []
  for await (const item of items) out.push(item)
  return out
}

export const sessionList = defineCommand({
  name: "session list",
  summary: "List sessions, newest first: id, title, status and last update, one per line.",
  synopsis: "[--attach URL | --db PATH] [--json]",
  flags: { ...targetFlags, json },
  positionals: [],
  async run({ flags }, io): Promise<number> {
    const sessions = await withBackend(target(sessionList, flags), io, (backend) => collect(backend.sessions()))
    if (flags.json) io.out(JSON.stringify(sessions, null, 2))
    else for (const line of sessionLines(sessions)) io.out(line)
    return EXIT_OK
  },
})

export const sessionShow = defineCommand({
  name: "session show",
  summary: "Show a session and its transcript: each message's type, origin and content.",
  synopsis: "ID [--attach URL | --db PATH] [--json]",
  details: ["A retracted message shows its host placeholder; reasoning lines start with `~`."],
  flags: { ...targetFlags, json },
  positionals: [{ name: "ID", description: "The session id (ses_...)", required: true }],
  async run({ flags, args }, io): Promise<number> {
    const sessionID = args[0]!
    await withBackend(target(sessionShow, flags), io, async (backend) => {
      const session = await backend.session(sessionID)
      if (flags.json) {
        io.out(JSON.stringify({ session, messages: await collect(backend.messages(sessionID)) }, null, 2))
        return
      }
      io.out(renderSessionHeader(session))
      let count = 0
      for await (const message of backend.messages(sessionID)) {
        io.out("")
        io.out(renderMessage(message))
        count++
      }
      if (count === 0) io.out("\n(no messages)")
    })
    return EXIT_OK
  },
})

const PRUNABLE: ReadonlyArray<PrunableType> = ["tool", "reasoning"]
const DAY = 24 * 60 * 60 * 1000

const parseTypes = (raw: string | undefined): ReadonlyArray<PrunableType> => {
  if (raw === undefined) return PRUNABLE
  const types = raw
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
  const bad = types.find((t) => !(PRUNABLE as ReadonlyArray<string>).includes(t))
  if (bad !== undefined || types.length === 0) {
    throw new UsageError(
      `invalid value for --types: "${raw}" (expected a comma-separated list of ${PRUNABLE.join(", ")})`,
      sessionPrune,
    )
  }
  return [...new Set(types as Array<PrunableType>)]
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

export const sessionPrune = defineCommand({
  name: "session prune",
  summary: "Remove tool and/or reasoning items of completed assistant messages, keeping prompts and final text.",
  synopsis: "ID | --all [--older-than DAYS] [--types tool,reasoning] [--attach URL | --db PATH]",
  details: [
    "Works on the local database through the core or, with --attach, through that server. When a server",
    "is running on the local database, the command goes through it, so its live clients see the prune.",
    "A session whose turn is running or waiting to resume is busy: it is reported",
    "and skipped. Prints a progress bar on a terminal, then one summary line:",
    "`pruned N sessions: I items, B bytes`. Exit status 0 unless every session failed.",
  ],
  flags: {
    all: { type: "boolean", description: "Prune every session" },
    "older-than": {
      type: "string",
      value: "DAYS",
      description: "With --all: only sessions last updated more than DAYS days ago",
    },
    types: {
      type: "string",
      value: "LIST",
      description: "Item types to remove: tool, reasoning or both (default both)",
    },
    ...targetFlags,
  },
  positionals: [{ name: "ID", description: "The session to prune (or --all)" }],
  async run({ flags, args }, io): Promise<number> {
    const sessionID = args[0]
    if ((sessionID === undefined) === (flags.all !== true)) {
      throw new UsageError(
        sessionID === undefined ? "give a session ID or --all" : "give either a session ID or --all, not both",
        sessionPrune,
      )
    }
    if (flags["older-than"] !== undefined && !flags.all) throw new UsageError("--older-than needs --all", sessionPrune)
    const olderThan = numberFlag(sessionPrune, "older-than", flags["older-than"])
    const types = parseTypes(flags.types)
    return withBackend(target(sessionPrune, flags), io, async (backend) => {
      const ids = sessionID !== undefined ? [sessionID] : await selectSessions(backend, olderThan)
      const summary = { sessions: 0, messages: 0, items: 0, bytes: 0, busy: 0, failed: 0 }
      const progress = io.stderrIsTTY && ids.length > 1
      for (const [index, id] of ids.entries()) {
        if (progress) io.status(progressBar(index, ids.length, id))
        try {
          const result = await backend.prune(id, types)
          summary.sessions++
          summary.messages += result.messages
          summary.items += result.items
          summary.bytes += result.bytes
        } catch (cause) {
          if (!(cause instanceof CommandError)) throw cause
          if (progress) io.status("")
          if (cause.tag === "SessionBusyError") {
            summary.busy++
            io.err(`skipped ${id}: ${cause.message}`)
          } else {
            summary.failed++
            io.err(`failed ${id}: ${cause.message}`)
          }
        }
      }
      if (progress) io.status(`${progressBar(ids.length, ids.length, "done")}\n`)
      const skipped = [
        summary.busy ? `${summary.busy} busy skipped` : "",
        summary.failed ? `${summary.failed} failed` : "",
      ].filter(Boolean)
      io.out(
        `pruned ${plural(summary.sessions, "session")}: ${plural(summary.items, "item")}, ${summary.bytes} bytes` +
          (summary.bytes >= 1024 ? ` (${formatBytes(summary.bytes)})` : "") +
          (skipped.length ? `; ${skipped.join(", ")}` : ""),
      )
      return ids.length > 0 && summary.sessions === 0 ? EXIT_FAILURE : EXIT_OK
    })
  },
})

/** Every session, or those last updated more than `days` days ago. */
const selectSessions = async (backend: Backend, days: number | undefined) => {
  const cutoff = days === undefined ? undefined : Date.now() - days * DAY
  const ids: Array<string> = []
  for await (const session of backend.sessions() as AsyncIterable<SessionV2Info>) {
    if (cutoff === undefined || session.time.updated < cutoff) ids.push(session.id)
  }
  return ids
}
