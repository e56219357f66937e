/** Plain-text rendering for the CLI: sessions, transcripts, byte counts, tables and a progress bar. */
import type { DatabaseStats, Message, Part, SessionInfo } from "@opencode-ai/sdk"

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
export const formatTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z")

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
export const sessionLines = (sessions: ReadonlyArray<SessionInfo>) =>
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

const renderPart = (part: Part): string => {
  switch (part.type) {
    case "text":
      return indent(part.text)
    case "reasoning":
      return indent(part.text, "  ~ ")
    case "tool": {
      const head = `  [tool ${part.tool} ${part.state}] ${compact(part.input)}`
      const tail = part.error !== undefined ? `error: ${part.error}` : part.output !== undefined ? part.output : undefined
      if (tail === undefined) return head
      const lines = tail.split("\n")
      const shown = lines.slice(0, 8).join("\n") + (lines.length > 8 ? `\n… (${lines.length - 8} more lines)` : "")
      return `${head}\n${indent(shown, "    ")}`
    }
  }
}

/** A message header and its parts; a retracted message shows its host placeholder instead. */
export const renderMessage = (message: Message): string => {
  const details = [`origin ${message.origin}`]
  if (message.type === "assistant") {
    details.push(`${message.model.providerID}/${message.model.modelID}`, `agent ${message.agent}`)
    if (message.finish) details.push(`finish ${message.finish}`)
    if (message.time.completed === undefined) details.push("in progress")
  }
  if (message.type === "synthetic" && message.description) details.push(message.description)
  if (message.type === "compaction") details.push(`${message.reason} summary of #1-#${message.through}`)
  const lines = [`#${message.seq} ${message.type} ${message.id} (${details.join(", ")}) ${formatTime(message.time.created)}`]
  if (message.retracted) {
    lines.push(`  [retracted by ${message.retracted.by} at ${formatTime(message.retracted.time)}] ${message.placeholder ?? ""}`.trimEnd())
  } else {
    for (const part of message.parts) lines.push(renderPart(part))
    if (message.parts.length === 0) lines.push("  (no parts)")
  }
  if (message.type === "assistant" && message.error) lines.push(`  error: ${message.error.name}: ${message.error.message}`)
  return lines.join("\n")
}

export const renderSessionHeader = (session: SessionInfo) =>
  [
    `${session.id}  ${session.title}`,
    `  status ${session.status}, ${session.seq} events, created ${formatTime(session.time.created)}, updated ${formatTime(session.time.updated)}`,
    `  directory ${session.directory}${session.agent ? `, agent ${session.agent}` : ""}${session.model ? `, model ${session.model}` : ""}`,
  ].join("\n")

/** `db stats` as a human-readable report. */
export const renderStats = (stats: DatabaseStats): Array<string> => {
  const lines = [
    `database  ${stats.path}`,
    `files     db ${formatBytes(stats.files.database)}, wal ${formatBytes(stats.files.wal)}, shm ${formatBytes(stats.files.shm)}`,
    `pages     ${stats.pages.count} x ${stats.pages.size} B, ${stats.pages.free} free (${formatBytes(stats.pages.free * stats.pages.size)})`,
    `journal   ${stats.journal.events} events, ${formatBytes(stats.journal.bytes)}`,
    `parts     text ${formatBytes(stats.parts.text)}, reasoning ${formatBytes(stats.parts.reasoning)}, tool ${formatBytes(stats.parts.tool)}`,
    "",
  ]
  if (stats.sessions.length === 0) return [...lines, "no sessions"]
  const rows = [
    ["session", "messages", "bytes", "text", "reasoning", "tool", "journal", "title"],
    ...stats.sessions.map((s) => [
      s.sessionID,
      String(s.messages),
      formatBytes(s.bytes),
      formatBytes(s.parts.text),
      formatBytes(s.parts.reasoning),
      formatBytes(s.parts.tool),
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
