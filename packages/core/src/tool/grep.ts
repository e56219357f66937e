import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Schema } from "effect"
import { type LineMatcher, startMatcher } from "./grep-matcher.ts"
import { SKIPPED_DIRECTORIES, sortedEntries } from "./list.ts"
import { Glob } from "../platform/glob.ts"
import { displayPath, resolveInsideWithRoot } from "./path.ts"
import { BINARY_SNIFF_BYTES, looksBinary } from "./read.ts"
import { ToolError, type Tool } from "./tool.ts"

export const GREP_MAX_MATCHES = 200
/** Matched lines are shown up to this many characters. */
export const GREP_MAX_LINE_CHARS = 500
/** Files bigger than this are not searched (generated bundles, logs, data dumps); the result names them. */
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024
/** At most this many skipped files are named in a result. */
export const GREP_MAX_SKIPPED_SHOWN = 20
/**
 * Wall-clock budget of one grep call (walk and matching). Matching runs in a worker, so a pattern that
 * backtracks catastrophically costs a thread for this long, never the event loop; then the call fails
 * with a tool error naming the pattern.
 */
export const GREP_TIME_BUDGET_MS = 5_000

export const GrepInput = Schema.Struct({
  pattern: Schema.String.annotate({
    description: "JavaScript regular expression searched for in each line (no flags; use [Aa] for case variants).",
  }),
  path: Schema.optionalKey(
    Schema.String.annotate({
      description: 'File or directory to search, relative to the session directory. Defaults to ".".',
    }),
  ),
  include: Schema.optionalKey(
    Schema.String.annotate({
      description:
        'Only search files whose name matches this glob, e.g. "*.ts" or "*.{ts,tsx}". A glob containing "/" is ' +
        'matched against the path relative to the session directory ("src/**/*.ts").',
    }),
  ),
})
export type GrepInput = typeof GrepInput.Type

interface Search {
  readonly root: string
  /** The `include` glob, compiled by the platform's `Glob` as the glob tool's pattern is. */
  readonly include: { readonly match: (subject: string) => boolean; readonly onPath: boolean } | undefined
  readonly signal: AbortSignal
  readonly matcher: LineMatcher
  readonly matches: Array<string>
  /** Files not searched because they are over `GREP_MAX_FILE_BYTES` (display paths). */
  readonly skipped: Array<string>
  truncated: boolean
}

const aborted = () => new ToolError({ tool: "grep", message: "aborted" })

/**
 * Searches one regular file: read here, matched in the worker. Silently skips unreadable and binary files;
 * files over the size cap are recorded as skipped.
 */
const searchFile = async (search: Search, file: string): Promise<void> => {
  let content: Buffer
  try {
    // O_NONBLOCK: opening a FIFO must not block (a regular file is unaffected by the flag).
    const handle = await fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    try {
      const stat = await handle.stat()
      if (!stat.isFile()) return
      if (stat.size > GREP_MAX_FILE_BYTES) {
        search.skipped.push(displayPath(search.root, file))
        return
      }
      content = await handle.readFile()
    } finally {
      await handle.close()
    }
  } catch {
    return
  }
  if (looksBinary(content.subarray(0, BINARY_SNIFF_BYTES))) return
  const found = await search.matcher.match(
    displayPath(search.root, file),
    content,
    GREP_MAX_MATCHES - search.matches.length,
  )
  search.matches.push(...found.matches)
  if (found.truncated) search.truncated = true
}

/** The note naming files skipped for size, or nothing. */
const skippedNote = (skipped: ReadonlyArray<string>): Array<string> => {
  if (skipped.length === 0) return []
  const shown = skipped.slice(0, GREP_MAX_SKIPPED_SHOWN).join(", ")
  const more = skipped.length > GREP_MAX_SKIPPED_SHOWN ? ` and ${skipped.length - GREP_MAX_SKIPPED_SHOWN} more` : ""
  const files = skipped.length === 1 ? "1 file" : `${skipped.length} files`
  return [`(Skipped ${files} over ${GREP_MAX_FILE_BYTES / 1024 / 1024} MiB, not searched: ${shown}${more}.)`]
}

const included = (search: Search, file: string): boolean => {
  if (search.include === undefined) return true
  const subject = search.include.onPath ? displayPath(search.root, file) : nodePath.basename(file)
  return search.include.match(subject)
}

/**
 * Depth-first over real directories inside the session directory, sorted by name. Symbolic links are never
 * followed (neither files nor directories): their targets may lie outside the session directory, and
 * directory links could loop. A path named explicitly by the call has already been resolved and confined.
 */
const searchDirectory = async (search: Search, directory: string): Promise<void> => {
  let entries
  try {
    entries = await sortedEntries(directory)
  } catch {
    return
  }
  for (const entry of entries) {
    if (search.signal.aborted) throw aborted()
    if (search.truncated) return
    const full = nodePath.join(directory, entry.name)
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) await searchDirectory(search, full)
    } else if (entry.isFile()) {
      if (included(search, full)) await searchFile(search, full)
    }
  }
}

const overBudget = (pattern: string, budgetMs: number) =>
  new ToolError({
    tool: "grep",
    message:
      `grep stopped: pattern ${JSON.stringify(pattern)} did not finish within its ${budgetMs / 1000} s time budget. ` +
      "It may backtrack catastrophically (nested or overlapping repetition such as (a|a)* or (a+)+); " +
      "simplify the pattern, or narrow path or include.",
  })

/** The grep tool with a given time budget (tests use a short one); `grep` is the one the host registers. */
export const makeGrep = (budgetMs: number = GREP_TIME_BUDGET_MS): Tool<GrepInput> => ({
  name: "grep",
  description: [
    "Search the contents of text files inside the session directory with a JavaScript regular expression.",
    'Returns matching lines as "path:line: text" (paths relative to the session directory), in path order.',
    "Optionally restrict the search to a file or directory (path) and to file names matching a glob",
    `(include, e.g. "*.ts"). .git, node_modules, binary files, files over ${GREP_MAX_FILE_BYTES / 1024 / 1024} MiB`,
    `and symbolic links are skipped (files skipped for size are named). At most ${GREP_MAX_MATCHES} matches are`,
    `returned. A search that takes longer than ${budgetMs / 1000} s fails; simplify the pattern or narrow the path.`,
  ].join(" "),
  input: GrepInput,
  execute: (input, ctx) =>
    Effect.gen(function* () {
      // Compiled here only to reject a malformed pattern with a clear error; the worker compiles its own.
      yield* Effect.try({
        try: () => new RegExp(input.pattern),
        catch: (error) =>
          new ToolError({
            tool: "grep",
            message: `invalid regular expression ${JSON.stringify(input.pattern)}: ${error instanceof Error ? error.message : String(error)}`,
          }),
      })
      const includeGlob = input.include
      const platformGlob = yield* Glob
      const include =
        includeGlob === undefined || includeGlob === ""
          ? undefined
          : yield* Effect.try({
              try: () => ({ match: platformGlob.compile(includeGlob), onPath: includeGlob.includes("/") }),
              catch: (error) =>
                new ToolError({
                  tool: "grep",
                  message: `invalid include glob ${JSON.stringify(includeGlob)}: ${error instanceof Error ? error.message : String(error)}`,
                }),
            })
      const { root, path } = yield* resolveInsideWithRoot("grep", ctx.directory, input.path ?? ".")

      return yield* Effect.tryPromise({
        try: async (signal) => {
          const budget = AbortSignal.timeout(budgetMs)
          const search: Search = {
            root,
            include,
            signal: AbortSignal.any([signal, ctx.signal, budget]),
            matcher: startMatcher(input.pattern, GREP_MAX_LINE_CHARS),
            matches: [],
            skipped: [],
            truncated: false,
          }
          // Any stop (budget, interrupt) terminates the worker, even mid-match, and fails what waits on it.
          const stop = () => search.matcher.close()
          search.signal.addEventListener("abort", stop, { once: true })
          try {
            const stat = await fs.stat(path)
            if (stat.isDirectory()) await searchDirectory(search, path)
            else if (stat.isFile()) await searchFile(search, path)
            else throw new ToolError({ tool: "grep", message: `"${displayPath(root, path)}" is not a regular file` })
          } catch (error) {
            if (budget.aborted) throw overBudget(input.pattern, budgetMs)
            if (search.signal.aborted) throw aborted()
            throw error
          } finally {
            search.signal.removeEventListener("abort", stop)
            search.matcher.close()
          }
          if (budget.aborted) throw overBudget(input.pattern, budgetMs)
          if (search.signal.aborted) throw aborted()

          const note = skippedNote(search.skipped)
          if (search.matches.length === 0) return ["No matches found.", ...note].join(" ")
          if (search.truncated) {
            search.matches.push(
              "",
              `(Showing the first ${GREP_MAX_MATCHES} matches; there are more. Narrow the pattern, path or include.)`,
            )
          }
          if (note.length > 0) search.matches.push("", ...note)
          return search.matches.join("\n")
        },
        catch: (error) =>
          error instanceof ToolError
            ? error
            : new ToolError({ tool: "grep", message: `search failed: ${String(error)}` }),
      })
    }),
})

/** Searches file contents inside the session directory with a regular expression. */
export const grep: Tool<GrepInput> = makeGrep()
