import type { SessionMessage, ToolItem } from "./types.ts"

/** One change a tool call made to a file: its unified diff and the prompt (user message) it answered. */
export interface FileChange {
  readonly path: string
  readonly diff: string
  readonly additions: number
  readonly deletions: number
  readonly itemID: string
  /** The user message whose turn made the change (undefined before the first prompt). */
  readonly promptID: string | undefined
}

/** The changes to one file, oldest first. */
export interface ChangedFile {
  readonly path: string
  readonly changes: ReadonlyArray<FileChange>
  readonly additions: number
  readonly deletions: number
}

const pathOf = (item: ToolItem, diff: string): string => {
  const input = item.state.status === "pending" ? undefined : (item.state.input as Record<string, unknown> | undefined)
  const named = input?.path ?? input?.filePath
  if (typeof named === "string" && named) return named
  const header = /^\+\+\+ (?:b\/)?(.+)$/m.exec(diff) ?? /^--- (?:a\/)?(.+)$/m.exec(diff)
  return header?.[1]?.trim() || item.name
}

const count = (diff: string) => {
  let additions = 0
  let deletions = 0
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) additions++
    else if (line.startsWith("-") && !line.startsWith("---")) deletions++
  }
  return { additions, deletions }
}

/**
 * Every file change in the transcript, from the tool calls' structured diffs (what the edit, write and
 * patch tools record), each tagged with the prompt whose turn made it. Pruned calls no longer hold one.
 */
export const fileChanges = (messages: ReadonlyArray<SessionMessage>): Array<FileChange> => {
  const out: Array<FileChange> = []
  let promptID: string | undefined
  for (const message of messages) {
    if (message.type === "user") promptID = message.id
    if (message.type !== "assistant") continue
    for (const item of message.content) {
      if (item.type !== "tool" || item.state.status === "pending") continue
      const diff = (item.state.structured as Record<string, unknown> | undefined)?.diff
      if (typeof diff !== "string" || diff === "") continue
      out.push({ path: pathOf(item, diff), diff, ...count(diff), itemID: item.id, promptID })
    }
  }
  return out
}

/** The changes grouped by file, files in the order they were first changed. */
export const changedFiles = (changes: ReadonlyArray<FileChange>): Array<ChangedFile> => {
  const byPath = new Map<string, Array<FileChange>>()
  for (const change of changes) byPath.set(change.path, [...(byPath.get(change.path) ?? []), change])
  return [...byPath].map(([path, list]) => ({
    path,
    changes: list,
    additions: list.reduce((n, c) => n + c.additions, 0),
    deletions: list.reduce((n, c) => n + c.deletions, 0),
  }))
}
