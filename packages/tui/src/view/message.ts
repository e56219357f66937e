import type { SessionMessage, SessionMessageAssistantItem } from "@opencode-ai/sdk/v2"
import { highlightLine } from "./highlight.ts"
import { markdown } from "./markdown.ts"
import { color, type Line } from "./style.ts"

/**
 * One message as terminal lines. Tool calls are one row (name, what they act on, status) that expands to
 * input, output and diff; reasoning is one collapsed row that expands to its text. Pruned, retracted and
 * corrected content carries the web client's markers: `removed`, `retracted` (with the placeholder the
 * model sees instead) and `edited`.
 */

export interface MessageView {
  /** Streaming text of an item not yet in its durable text. */
  readonly tail: (messageID: string, itemID: string) => string
  /** Expanded items (tool calls, reasoning) by item id. */
  readonly expanded: ReadonlySet<string>
  /** The selected message or item id, drawn highlighted. */
  readonly selected: string | undefined
}

const MAX_OUTPUT = 40

const mark = (text: string, fg: string): Line => [{ text: ` ${text} `, fg: "#1d2129", bg: fg, bold: true }]

const primaryArg = (input: unknown): string => {
  if (typeof input !== "object" || input === null) return ""
  const record = input as Record<string, unknown>
  for (const key of ["path", "filePath", "command", "pattern", "url", "description", "query"]) {
    const value = record[key]
    if (typeof value === "string" && value !== "") return value.split("\n")[0]!.slice(0, 80)
  }
  return ""
}

const toolStatus = (item: Extract<SessionMessageAssistantItem, { type: "tool" }>) => {
  switch (item.state.status) {
    case "pending":
      return { icon: "…", label: "pending", fg: color.dim }
    case "running":
      return { icon: "⋯", label: "running", fg: color.warn }
    case "completed":
      return { icon: "✓", label: "done", fg: color.add }
    case "error":
      return { icon: "✗", label: "failed", fg: color.error }
  }
}

const textOf = (content: ReadonlyArray<{ type: string; text?: string }>) =>
  content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n")

const limited = (text: string, max: number): Array<string> => {
  const lines = text.replace(/\n$/, "").split("\n")
  return lines.length > max ? [...lines.slice(0, max), `… ${lines.length - max} more lines`] : lines
}

const toolLines = (
  item: Extract<SessionMessageAssistantItem, { type: "tool" }>,
  expanded: boolean,
  selected: boolean,
): Array<Line> => {
  if (item.time.pruned !== undefined) {
    return [[...mark("removed", color.dim), { text: ` ${item.name} call`, fg: color.dim }]]
  }
  const status = toolStatus(item)
  // A title usually starts with the tool's name ("write a.txt"): the name is not said twice.
  const title = item.title ?? primaryArg(item.state.input)
  const arg = title.startsWith(`${item.name} `) ? title.slice(item.name.length + 1) : title
  const head: Line = [
    { text: selected ? "▶ " : "  ", fg: color.accent },
    { text: `${status.icon} `, fg: status.fg },
    { text: item.name, fg: color.fn, bold: true },
    { text: arg ? ` ${arg}` : "", fg: color.text },
    { text: `  ${status.label}`, fg: status.fg },
    { text: expanded ? "" : "  [enter: details]", fg: color.border },
  ]
  if (!expanded) return [head]
  const lines: Array<Line> = [head]
  const input = item.state.input
  lines.push([{ text: "    input ", fg: color.dim }])
  for (const line of limited(typeof input === "string" ? input : JSON.stringify(input, null, 2), 20))
    lines.push([{ text: "    " }, ...highlightLine(line, "js")])
  if (item.state.status !== "pending") {
    const output = textOf(item.state.content as ReadonlyArray<{ type: string; text?: string }>)
    if (output) {
      lines.push([{ text: "    output", fg: color.dim }])
      for (const line of limited(output, MAX_OUTPUT)) lines.push([{ text: `    ${line}`, fg: color.text }])
    }
    const diff = item.state.structured["diff"]
    if (typeof diff === "string" && diff !== "") {
      lines.push([{ text: "    diff", fg: color.dim }])
      for (const line of limited(diff, MAX_OUTPUT)) lines.push([{ text: "    " }, ...highlightLine(line, "diff")])
    }
    if (item.state.status === "error") lines.push([{ text: `    error: ${item.state.error.message}`, fg: color.error }])
  }
  return lines
}

const assistantLines = (message: Extract<SessionMessage, { type: "assistant" }>, view: MessageView) => {
  const lines: Array<Line> = []
  for (const item of message.content) {
    const tail = item.type === "tool" ? "" : view.tail(message.id, item.id)
    const selected = view.selected === item.id
    if (item.type === "text") {
      lines.push(...markdown(item.text + tail))
      if (item.corrected) lines.push(mark("edited", color.warn))
    } else if (item.type === "reasoning") {
      const text = item.text + tail
      const open = view.expanded.has(item.id)
      lines.push([
        { text: selected ? "▶ " : "  ", fg: color.accent },
        { text: `${open ? "▾" : "▸"} thinking`, fg: color.dim, italic: true },
        { text: open ? "" : ` (${text.length} chars)`, fg: color.border },
      ])
      if (open) for (const line of text.split("\n")) lines.push([{ text: `    ${line}`, fg: color.dim, italic: true }])
    } else lines.push(...toolLines(item, view.expanded.has(item.id), selected))
  }
  for (const _id of message.removed ?? [])
    lines.push([...mark("removed", color.dim), { text: " reasoning", fg: color.dim }])
  if (message.error)
    lines.push([{ text: `✗ ${message.error.name ?? "error"}: ${message.error.message}`, fg: color.error }])
  return lines
}

/** The lines of one message. */
export const messageLines = (message: SessionMessage, view: MessageView): Array<Line> => {
  const selected = view.selected === message.id
  const pointer: Line = [{ text: selected ? "▶ " : "", fg: color.accent }]
  if (message.retracted) {
    const who = message.type === "user" ? "you" : message.type
    return [
      [...pointer, ...mark("retracted", color.warn), { text: ` ${who}`, fg: color.dim }],
      [{ text: `  ${message.placeholder ?? "(retracted)"}`, fg: color.dim, italic: true }],
    ]
  }
  const edited = message.corrected ? [mark("edited", color.warn)] : []
  const queued = "queued" in message && message.queued ? [{ text: "  (queued)", fg: color.warn }] : []
  switch (message.type) {
    case "user":
      return [
        [
          ...pointer,
          { text: "› ", fg: color.user, bold: true },
          { text: message.text.split("\n")[0]!, fg: color.user, bold: true },
          ...queued,
        ],
        ...message.text
          .split("\n")
          .slice(1)
          .map((line): Line => [{ text: `  ${line}`, fg: color.user }]),
        ...edited,
      ]
    case "synthetic":
      return [
        [
          ...pointer,
          { text: "notice ", fg: color.warn },
          { text: message.description ?? message.text.split("\n")[0]!, fg: color.dim },
          ...queued,
        ],
        ...edited,
      ]
    case "system":
      return [[...pointer, { text: `system: ${message.text.split("\n")[0]}`, fg: color.dim }]]
    case "shell":
      return [
        [...pointer, { text: `$ ${message.command}`, fg: color.fn }],
        ...limited(message.output, 20).map((line): Line => [{ text: `  ${line}`, fg: color.text }]),
      ]
    case "agent-switched":
      return [[...pointer, { text: `── agent: ${message.agent} ──`, fg: color.dim }]]
    case "model-switched":
      return [[...pointer, { text: `── model: ${message.model.providerID}/${message.model.id} ──`, fg: color.dim }]]
    case "compaction":
      return [
        [...pointer, { text: `── compacted (${message.reason}) ──`, fg: color.dim }],
        ...(view.expanded.has(message.id) ? markdown(message.summary) : []),
        ...edited,
      ]
    case "assistant":
      return [...(selected ? [pointer] : []), ...assistantLines(message, view)]
  }
}
