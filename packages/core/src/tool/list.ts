import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Schema } from "effect"
import { displayPath, resolveInsideWithRoot } from "./path.ts"
import { ToolError, type Tool } from "./tool.ts"

/** Directories never descended into (nor listed) by list and grep. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"])

export const LIST_MAX_ENTRIES = 1000
export const LIST_MAX_DEPTH = 5

export const ListInput = Schema.Struct({
  path: Schema.optionalKey(
    Schema.String.annotate({
      description: 'Directory to list, relative to the session directory. Defaults to "." (the session directory).',
    }),
  ),
  depth: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: LIST_MAX_DEPTH })).annotate({
      description: `How many directory levels to descend (1-${LIST_MAX_DEPTH}). Defaults to 1 (direct entries only).`,
    }),
  ),
})
export type ListInput = typeof ListInput.Type

/** Reads a directory's entries sorted by name (code-point order, so the output is deterministic). */
export const sortedEntries = async (directory: string): Promise<Array<Dirent>> => {
  const entries = await fs.readdir(directory, { withFileTypes: true })
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

const run = async (root: string, start: string, depth: number, signal: AbortSignal): Promise<string> => {
  const shown = displayPath(root, start)
  const stat = await fs.stat(start)
  if (!stat.isDirectory()) {
    throw new ToolError({ tool: "list", message: `"${shown}" is not a directory; use the read tool for files` })
  }

  const lines: Array<string> = []
  let truncated = false
  let symlinks = false

  // Depth-first, entries sorted, so a directory's contents follow it directly.
  const visit = async (directory: string, level: number): Promise<void> => {
    let entries: Array<Dirent>
    try {
      entries = await sortedEntries(directory)
    } catch (error) {
      if (level === 1) throw error
      return // an unreadable subdirectory is listed but not descended into
    }
    for (const entry of entries) {
      if (signal.aborted) throw new ToolError({ tool: "list", message: "aborted" })
      if (lines.length >= LIST_MAX_ENTRIES) {
        truncated = true
        return
      }
      const full = nodePath.join(directory, entry.name)
      const rel = displayPath(root, full)
      if (entry.isDirectory()) {
        if (SKIPPED_DIRECTORIES.has(entry.name)) continue
        lines.push(`${rel}/`)
        if (level < depth) await visit(full, level + 1)
      } else if (entry.isSymbolicLink()) {
        // Never followed: the target may be outside the session directory.
        symlinks = true
        lines.push(`${rel}@`)
      } else {
        lines.push(rel)
      }
    }
  }
  await visit(start, 1)

  if (lines.length === 0) return `(${shown} is empty)`
  if (truncated) {
    lines.push("", `(Listing stopped at ${LIST_MAX_ENTRIES} entries; list a subdirectory or use a smaller depth.)`)
  }
  if (symlinks) lines.push("", "(Entries ending in @ are symbolic links; they are not followed.)")
  return lines.join("\n")
}

/** Lists a directory inside the session directory. */
export const list: Tool<ListInput> = {
  name: "list",
  description: [
    "List the entries of a directory inside the session directory, sorted by name, as paths relative to the",
    'session directory. Directories end with "/", symbolic links with "@". Use depth (1-5) to descend into',
    `subdirectories. .git and node_modules are skipped. At most ${LIST_MAX_ENTRIES} entries are returned.`,
  ].join(" "),
  input: ListInput,
  execute: (input, ctx) =>
    Effect.gen(function* () {
      const { root, path } = yield* resolveInsideWithRoot("list", ctx.directory, input.path ?? ".")
      return yield* Effect.tryPromise({
        try: (signal) => run(root, path, input.depth ?? 1, AbortSignal.any([signal, ctx.signal])),
        catch: (error) =>
          error instanceof ToolError
            ? error
            : new ToolError({ tool: "list", message: `cannot list "${input.path ?? "."}": ${String(error)}` }),
      })
    }),
}
