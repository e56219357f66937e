/**
 * What the prompt box completes at the caret: a `/command` (only as the prompt's first word, where the
 * server reads it) or an `@file` mention (anywhere, after a space or at the start).
 */
export interface Trigger {
  readonly kind: "command" | "file"
  /** The text typed after `/` or `@`. */
  readonly query: string
  /** Where the token (marker included) starts and ends in the text. */
  readonly start: number
  readonly end: number
}

export const triggerAt = (text: string, caret: number): Trigger | undefined => {
  let start = caret
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--
  let end = caret
  while (end < text.length && !/\s/.test(text[end]!)) end++
  const token = text.slice(start, caret)
  if (token.startsWith("/") && start === 0 && !token.slice(1).includes("/"))
    return { kind: "command", query: token.slice(1), start, end }
  if (token.startsWith("@")) return { kind: "file", query: token.slice(1), start, end }
  return undefined
}

/** The text with the trigger's token replaced by the chosen value, and where the caret goes after it. */
export const complete = (text: string, trigger: Trigger, value: string): { text: string; caret: number } => {
  const inserted = `${trigger.kind === "command" ? "/" : "@"}${value} `
  const rest = text.slice(trigger.end).replace(/^ /, "")
  return { text: text.slice(0, trigger.start) + inserted + rest, caret: trigger.start + inserted.length }
}

/** Commands whose name starts with the query first, then those containing it. */
export const matchCommands = <T extends { name: string }>(commands: ReadonlyArray<T>, query: string): Array<T> => {
  const q = query.toLowerCase()
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q))
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q))
  return [...starts, ...contains]
}
