import type { Dirent } from "node:fs"
import * as nodePath from "node:path"
import { Effect, Schema } from "effect"
import { Glob, type GlobShape } from "../platform/glob.ts"
import { SKIPPED_DIRECTORIES, sortedEntries } from "./list.ts"
import { displayPath, resolveInsideWithRoot } from "./path.ts"
import { ToolError, type Tool } from "./tool.ts"

export const GLOB_MAX_RESULTS = 1000
/** Directory entries looked at per call; a bigger tree gets a clear "stopped early" note. */
export const GLOB_MAX_VISITED = 200_000

export const GlobInput = Schema.Struct({
  pattern: Schema.String.annotate({
    description: 'Glob pattern matched against paths relative to `path`, e.g. "**/*.ts", "src/*.json", "*.{md,txt}".',
  }),
  path: Schema.optionalKey(
    Schema.String.annotate({
      description: 'Directory to search in, relative to the session directory. Defaults to ".".',
    }),
  ),
})
export type GlobInput = typeof GlobInput.Type

const run = async (root: string, start: string, pattern: string, signal: AbortSignal, glob: GlobShape) => {
  const isMatch = glob.compile(pattern)
  const matches: Array<string> = []
  let visited = 0
  let stopped: string | undefined
  // Breadth-first over sorted entries; symlinks are never followed (they may lead outside).
  const queue: Array<string> = [start]
  while (queue.length > 0 && stopped === undefined) {
    const directory = queue.shift()!
    let entries: Array<Dirent>
    try {
      entries = await sortedEntries(directory)
    } catch (error) {
      if (directory === start) throw error
      continue
    }
    for (const entry of entries) {
      if (signal.aborted) throw new ToolError({ tool: "glob", message: "aborted" })
      if (++visited > GLOB_MAX_VISITED) {
        stopped = `(Search stopped after ${GLOB_MAX_VISITED} entries; narrow it with path.)`
        break
      }
      const full = nodePath.join(directory, entry.name)
      const rel = nodePath.relative(start, full).split(nodePath.sep).join("/")
      if (entry.isDirectory()) {
        if (SKIPPED_DIRECTORIES.has(entry.name)) continue
        queue.push(full)
        continue
      }
      if (isMatch(rel)) {
        if (matches.length >= GLOB_MAX_RESULTS) {
          stopped = `(Showing the first ${GLOB_MAX_RESULTS} matches; use a narrower pattern.)`
          break
        }
        matches.push(displayPath(root, full) + (entry.isSymbolicLink() ? "@" : ""))
      }
    }
  }
  if (matches.length === 0) return `No files match "${pattern}" in "${displayPath(root, start)}".`
  matches.sort()
  return [...matches, ...(stopped ? ["", stopped] : [])].join("\n")
}

/** Finds files by glob pattern inside the session directory. */
export const glob: Tool<GlobInput> = {
  name: "glob",
  description: [
    "Find files whose path (relative to `path`, default the session directory) matches a glob pattern:",
    "`*` within a path segment, `**` across directories, `{a,b}` alternatives. Returns matching paths relative",
    `to the session directory, sorted, at most ${GLOB_MAX_RESULTS}. .git and node_modules are skipped; symbolic`,
    'links are listed with a trailing "@" and not followed.',
  ].join(" "),
  input: GlobInput,
  execute: (input, ctx) =>
    Effect.gen(function* () {
      if (input.pattern.trim() === "") return yield* new ToolError({ tool: "glob", message: "pattern is empty" })
      if (nodePath.isAbsolute(input.pattern) || input.pattern.split("/").includes("..")) {
        return yield* new ToolError({
          tool: "glob",
          message: `pattern "${input.pattern}" must be relative and must not contain ".."; set path to search another directory inside the session`,
        })
      }
      const { root, path } = yield* resolveInsideWithRoot("glob", ctx.directory, input.path ?? ".")
      const platformGlob = yield* Glob
      return yield* Effect.tryPromise({
        try: (signal) => run(root, path, input.pattern, AbortSignal.any([signal, ctx.signal]), platformGlob),
        catch: (error) =>
          error instanceof ToolError
            ? error
            : new ToolError({ tool: "glob", message: `cannot search "${input.path ?? "."}": ${String(error)}` }),
      })
    }),
}
