/** Plain-text rendering for the CLI: sessions, transcripts, byte counts, tables and a progress bar. */
import type {
  DatabaseStats,
  ModelRef,
  SessionMessage,
  SessionMessageAssistantItem,
  SessionMessageAssistantTool,
  SessionV2Info,
} from "@opencode-ai/sdk/v2"

/** `1234` -> `1.2 KiB`; exact below 1 KiB. */
export const formatBytes = (bytes: number) => {
  if (bytes < 1024) return `${bytes} B`
  const units = ["KiB", "MiB", "GiB", "TiB"]
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

/** A timestamp as `YYYY-MM-DD HH:MM:SS` UTC. */
export const formatTime = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z")

const truncate = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text)

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>, align: ReadonlyArray<"left" | "right"> = []) => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows.map((row) =>
    row
      .map((cell, i) => {
        if (i === row.length - 1 && align[i] !== "right") return cell
        return align[i] === "right" ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)
      })
      .join("  "),
  )
}

/** One line per session: id, title, status, last update. */
export const sessionLines = (sessions: ReadonlyArray<SessionV2Info>) =>
  table(sessions.map((s) => [s.id, truncate(s.title.replace(/\s+/g, " "), 48), s.status, formatTime(s.time.updated)]))

const indent = (text: string, prefix = "  ") =>
  text
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n")

const compact = (value: unknown) => {
  const json = JSON.stringify(value)
  return json === undefined ? "" : truncate(json, 200)
}

/** `provider/model`, with the variant when one is chosen. */
export const modelName = (model: ModelRef) =>
  `${model.providerID}/${model.id}${model.variant !== undefined ? ` (${model.variant})` : ""}`

/** A tool call's input as an object: a pending call still holds the JSON text it arrived as. */
export const toolInput = (item: SessionMessageAssistantTool): unknown => {
  if (item.state.status !== "pending") return item.state.input
  try {
    return JSON.parse(item.state.input)
  } catch {
    return item.state.input
  }
}

/** The text of a tool result's content (files are named, not shown). */
export const contentText = (content: ReadonlyArray<{ type: string; text?: string; uri?: string }>) =>
  content.map((piece) => (piece.type === "text" ? (piece.text ?? "") : `[file ${piece.uri ?? ""}]`)).join("\n")

const renderItem = (item: SessionMessageAssistantItem): string => {
  switch (item.type) {
    case "text":
      return indent(item.text)
    case "reasoning":
      return indent(item.text, "  ~ ")
    case "tool": {
      const state = item.state
      const pruned = item.time.pruned !== undefined ? `, pruned by ${item.prunedBy ?? "user"}` : ""
      const head = `  [tool ${item.name} ${state.status}${pruned}] ${compact(toolInput(item))}`
      const tail =
        state.status === "error"
          ? `error: ${state.error.message}`
          : state.status === "completed"
            ? contentText(state.content)
            : undefined
      if (tail === undefined) return head
      const lines = tail.split("\n")
      const shown = lines.slice(0, 8).join("\n") + (lines.length > 8 ? `\n… (${lines.length - 8} more lines)` : "")
      const diff = state.status === "pending" ? undefined : state.structured["diff"]
      const diffText =
        typeof diff === "string" && diff !== "" ? `\n${diffLines(diff, styleFor(false), 20).join("\n")}` : ""
      return `${head}\n${indent(shown, "    ")}${diffText}`
    }
  }
}

/** What a message says, as indented lines (none for an empty answer). */
const renderBody = (message: SessionMessage): Array<string> => {
  switch (message.type) {
    case "user":
      return [
        indent(message.text),
        ...(message.files ?? []).map((file) => `  [file ${file.name ?? file.uri} ${file.mime}]`),
        ...(message.agents ?? []).map((agent) => `  [agent @${agent.name}]`),
      ]
    case "synthetic":
    case "system":
      return [indent(message.text)]
    case "assistant":
      return message.content.map(renderItem)
    case "compaction":
      return [indent(message.summary)]
    case "agent-switched":
      return [`  agent switched to ${message.agent}`]
    case "model-switched":
      return [`  model switched to ${modelName(message.model)}`]
    case "shell":
      return [indent(`$ ${message.command}`), indent(message.output, "    ")]
  }
}

/** A message header and its content; a retracted message shows its host placeholder instead. */
export const renderMessage = (message: SessionMessage): string => {
  const details = [`origin ${message.origin}`]
  if (message.type === "assistant") {
    details.push(modelName(message.model), `agent ${message.agent}`)
    if (message.finish) details.push(`finish ${message.finish}`)
    if (message.time.completed === undefined) details.push("in progress")
  }
  if (message.type === "synthetic" && message.description) details.push(message.description)
  if (message.type === "compaction") details.push(`${message.reason} summary of #1-#${message.through}`)
  if ((message.type === "user" || message.type === "synthetic") && message.queued) details.push("queued")
  const lines = [
    `#${message.seq} ${message.type} ${message.id} (${details.join(", ")}) ${formatTime(message.time.created)}`,
  ]
  if (message.retracted) {
    lines.push(
      `  [retracted by ${message.retracted.by} at ${formatTime(message.retracted.time)}] ${message.placeholder ?? ""}`.trimEnd(),
    )
  } else {
    const body = renderBody(message)
    lines.push(...body)
    if (body.length === 0) lines.push("  (empty)")
  }
  if (message.type === "assistant" && message.error)
    lines.push(`  error: ${message.error.name ?? "Error"}: ${message.error.message}`)
  return lines.join("\n")
}

export const renderSessionHeader = (session: SessionV2Info) =>
  [
    `${session.id}  ${session.title}`,
    `  status ${session.status}, ${session.seq} events, created ${formatTime(session.time.created)}, updated ${formatTime(session.time.updated)}`,
    `  directory ${session.location.directory}${session.agent ? `, agent ${session.agent}` : ""}${session.model ? `, model ${modelName(session.model)}` : ""}`,
  ].join("\n")

/** `db stats` as a human-readable report. */
export const renderStats = (stats: DatabaseStats): Array<string> => {
  const lines = [
    `database  ${stats.path}`,
    `files     db ${formatBytes(stats.files.database)}, wal ${formatBytes(stats.files.wal)}, shm ${formatBytes(stats.files.shm)}`,
    `pages     ${stats.pages.count} x ${stats.pages.size} B, ${stats.pages.free} free (${formatBytes(stats.pages.free * stats.pages.size)})`,
    `journal   ${stats.journal.events} events, ${formatBytes(stats.journal.bytes)}`,
    `items     text ${formatBytes(stats.items.text)}, reasoning ${formatBytes(stats.items.reasoning)}, tool ${formatBytes(stats.items.tool)}`,
    ...(stats.retention
      ? [
          `retention last run ${new Date(stats.retention.time).toISOString()}: pruned ${stats.retention.pruned.items} item(s) in ${stats.retention.pruned.sessions} session(s), deleted ${stats.retention.deleted.sessions} session(s), compacted ${stats.retention.journal.events} journal event(s) of ${stats.retention.journal.sessions} session(s)`,
        ]
      : []),
    "",
  ]
  if (stats.sessions.length === 0) return [...lines, "no sessions"]
  const rows = [
    ["session", "messages", "bytes", "text", "reasoning", "tool", "journal", "title"],
    ...stats.sessions.map((s) => [
      s.sessionID,
      String(s.messages),
      formatBytes(s.bytes),
      formatBytes(s.items.text),
      formatBytes(s.items.reasoning),
      formatBytes(s.items.tool),
      formatBytes(s.journal),
      truncate(s.title.replace(/\s+/g, " "), 40),
    ]),
  ]
  return [...lines, ...table(rows, ["left", "right", "right", "right", "right", "right", "right", "left"])]
}

/** `[#########-----------]  9/20 label` */
export const progressBar = (done: number, total: number, label: string, width = 24) => {
  const filled = total === 0 ? width : Math.round((done / total) * width)
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} ${label}`
}

/** ANSI styling for the terminal; every function is the identity when styling is off. */
export interface Style {
  readonly enabled: boolean
  dim(text: string): string
  bold(text: string): string
  red(text: string): string
  green(text: string): string
  cyan(text: string): string
}

const wrap = (open: string, close: string) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`

export const styleFor = (enabled: boolean): Style =>
  enabled
    ? {
        enabled,
        dim: wrap("2", "22"),
        bold: wrap("1", "22"),
        red: wrap("31", "39"),
        green: wrap("32", "39"),
        cyan: wrap("36", "39"),
      }
    : { enabled, dim: (t) => t, bold: (t) => t, red: (t) => t, green: (t) => t, cyan: (t) => t }

/** A permission ask as `run` receives it (`permission.v2.asked` data or a listed request). */
export interface Ask {
  readonly id: string
  readonly tool: string
  /** The kind of access: read, edit or bash. */
  readonly action: string
  readonly title: string
  /** What the rules match: paths relative to the session directory, or the command. */
  readonly resources: ReadonlyArray<string>
  /** What an `always` answer grants (`*`: the whole kind); the resources when absent. */
  readonly save?: ReadonlyArray<string>
  readonly metadata?: { readonly [key: string]: unknown }
}

/** The part of a tool call's input worth showing on one line: its path, pattern or command. */
export const shortInput = (tool: string, input: unknown): string => {
  if (typeof input === "object" && input !== null) {
    const record = input as Record<string, unknown>
    for (const key of tool === "bash" ? ["command"] : ["path", "pattern", "command"]) {
      const value = record[key]
      if (typeof value === "string") {
        const extra = key === "pattern" && typeof record["path"] === "string" ? ` in ${record["path"]}` : ""
        return truncate(value.replace(/\s+/g, " ") + extra, 80)
      }
    }
    if (tool === "patch" && typeof record["patch"] === "string") {
      const files = [...record["patch"].matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)]
        .map((m) => m[1])
        .filter((f) => f !== "/dev/null")
      return truncate(files.join(", "), 80)
    }
  }
  return truncate(compact(input), 80)
}

const firstLine = (text: string) =>
  text
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.trim() ?? ""

/** A settled tool call as `run` reports it. */
export interface ToolOutcome {
  readonly name: string
  readonly input: unknown
  readonly ok: boolean
  /** The output (a success) or the error message (a failure). */
  readonly text: string
}

/** `✓ edit a.txt  edited "a.txt" (1 replacement)` / `✗ bash rm -rf x  permission denied: ...` */
export const toolLine = (call: ToolOutcome, style: Style): string => {
  const mark = call.ok ? style.green("✓") : style.red("✗")
  const outcome = call.ok ? truncate(firstLine(call.text), 100) : truncate(firstLine(call.text || "error"), 160)
  return `${mark} ${style.bold(call.name)} ${shortInput(call.name, call.input)}  ${call.ok ? style.dim(outcome) : style.red(outcome)}`
}

/** A unified diff for the terminal: colored, at most `max` lines. */
export const diffLines = (diff: string, style: Style, max = 60): Array<string> => {
  const lines = diff.replace(/\n$/, "").split("\n")
  const shown = lines.slice(0, max).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ")) return style.bold(line)
    if (line.startsWith("@@")) return style.cyan(line)
    if (line.startsWith("+")) return style.green(line)
    if (line.startsWith("-")) return style.red(line)
    return style.dim(line)
  })
  if (lines.length > max) shown.push(style.dim(`… (${lines.length - max} more diff lines)`))
  return shown.map((line) => `    ${line}`)
}

/** What the person is asked about: the title, the patterns, the diff of a file change. */
export const askLines = (ask: Ask, style: Style): Array<string> => {
  const lines = [`${style.bold("?")} permission to ${style.bold(ask.title)}`]
  if (ask.resources.length > 1 || (ask.resources[0] !== undefined && !ask.title.includes(ask.resources[0]))) {
    lines.push(style.dim(`  ${ask.action}: ${ask.resources.join(", ")}`))
  }
  const diff = ask.metadata?.["diff"]
  if (typeof diff === "string" && diff !== "") lines.push(...diffLines(diff, style))
  return lines
}

/** `usage: 120 in, 40 out tokens · 1.2s` */
export const usageLine = (
  usage: { input: number; output: number; reasoning: number } | undefined,
  elapsedMs: number,
) => {
  const seconds = `${(elapsedMs / 1000).toFixed(1)}s`
  if (!usage) return `done in ${seconds}`
  const reasoning = usage.reasoning > 0 ? `, ${usage.reasoning} reasoning` : ""
  return `usage: ${usage.input} in, ${usage.output} out${reasoning} tokens · ${seconds}`
}
