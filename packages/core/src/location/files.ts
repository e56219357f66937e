import type { FileSystemEntry } from "@opencode-ai/schema"
import { Effect } from "effect"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Glob } from "../platform/glob.ts"
import { InvalidInputError } from "../domain/error.ts"
import { SKIPPED_DIRECTORIES, sortedEntries } from "../tool/list.ts"
import { displayPath, resolveInsideWithRoot } from "../tool/path.ts"

/**
 * A location's files for clients (upstream's `fs.list`, `fs.find`, `fs.read`), by the same confinement
 * rules as the tools: a path that resolves outside the location (through `..`, an absolute path or a
 * symlink) is refused, and symlinks are never followed while walking. Everything is asynchronous and
 * bounded, so a huge tree cannot hold the event loop or the response.
 */

const refuse = (field: string) => (error: { readonly message: string }) =>
  new InvalidInputError({ message: error.message, field })

/** The most entries `find` walks before it stops looking. */
export const FIND_WALK_LIMIT = 20_000
/** `find`'s default and largest page. */
export const FIND_DEFAULT = 50
export const FIND_MAX = 500
/** The largest file `read` serves. */
export const READ_MAX_BYTES = 50 * 1024 * 1024

/** The direct children of a directory inside the location, sorted by name; symlinks are not listed. */
export const listDirectory = (
  directory: string,
  path: string | undefined,
): Effect.Effect<ReadonlyArray<FileSystemEntry>, InvalidInputError> =>
  Effect.gen(function* () {
    const { root, path: start } = yield* resolveInsideWithRoot("fs.list", directory, path ?? ".").pipe(
      Effect.mapError(refuse("path")),
    )
    const stat = yield* Effect.promise(() => fs.stat(start))
    if (!stat.isDirectory())
      return yield* new InvalidInputError({ message: `"${path}" is not a directory`, field: "path" })
    const entries = yield* Effect.tryPromise({
      try: () => sortedEntries(start),
      catch: (cause) =>
        new InvalidInputError({ message: `cannot list "${path ?? "."}": ${String(cause)}`, field: "path" }),
    })
    return entries.flatMap((entry): Array<FileSystemEntry> => {
      const rel = displayPath(root, nodePath.join(start, entry.name))
      if (entry.isDirectory()) return [{ path: rel, type: "directory" }]
      if (entry.isFile()) return [{ path: rel, type: "file" }]
      return []
    })
  })

const GLOB = /[*?[\]{}]/

/**
 * Entries whose path matches `query`: a glob (`src/**\/*.ts`), or else a case-insensitive substring of the
 * path. Best matches first: those whose name (not only a parent) matches, then shorter paths. `.git` and
 * `node_modules` are not descended into.
 */
export const findEntries = (
  directory: string,
  query: string,
  options: { readonly type?: "file" | "directory"; readonly limit?: string },
): Effect.Effect<ReadonlyArray<FileSystemEntry>, InvalidInputError> =>
  Effect.gen(function* () {
    if (query.trim() === "") return yield* new InvalidInputError({ message: "query must not be empty", field: "query" })
    const limit = options.limit === undefined ? FIND_DEFAULT : Number(options.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > FIND_MAX)
      return yield* new InvalidInputError({ message: `limit must be an integer from 1 to ${FIND_MAX}`, field: "limit" })
    const { root } = yield* resolveInsideWithRoot("fs.find", directory, ".").pipe(Effect.mapError(refuse("location")))
    const glob = GLOB.test(query) ? (yield* Glob).compile(query) : undefined
    const needle = query.toLowerCase()
    const matches = (rel: string) => (glob ? glob(rel) : rel.toLowerCase().includes(needle))
    return yield* Effect.promise(async () => {
      const found: Array<FileSystemEntry & { readonly score: number }> = []
      let walked = 0
      const queue: Array<string> = [root]
      while (queue.length > 0 && walked < FIND_WALK_LIMIT) {
        const current = queue.shift()!
        let entries
        try {
          entries = await sortedEntries(current)
        } catch {
          continue
        }
        for (const entry of entries) {
          if (++walked > FIND_WALK_LIMIT) break
          const full = nodePath.join(current, entry.name)
          const rel = displayPath(root, full)
          const type = entry.isDirectory() ? "directory" : entry.isFile() ? "file" : undefined
          if (type === undefined) continue
          if (type === "directory" && !SKIPPED_DIRECTORIES.has(entry.name)) queue.push(full)
          if (options.type !== undefined && options.type !== type) continue
          if (!matches(rel)) continue
          const named = glob ? true : entry.name.toLowerCase().includes(needle)
          found.push({ path: rel, type, score: (named ? 0 : 1_000_000) + rel.length })
        }
      }
      return found
        .sort((a, b) => a.score - b.score || (a.path < b.path ? -1 : 1))
        .slice(0, limit)
        .map(({ path, type }) => ({ path, type }))
    })
  })

/** A file inside the location, opened for reading: its real path and size. */
export const openFile = (
  directory: string,
  path: string,
): Effect.Effect<{ readonly path: string; readonly size: number }, InvalidInputError> =>
  Effect.gen(function* () {
    const { path: real } = yield* resolveInsideWithRoot("fs.read", directory, path).pipe(
      Effect.mapError(refuse("path")),
    )
    const stat = yield* Effect.promise(() => fs.stat(real))
    if (!stat.isFile()) return yield* new InvalidInputError({ message: `"${path}" is not a file`, field: "path" })
    if (stat.size > READ_MAX_BYTES)
      return yield* new InvalidInputError({
        message: `"${path}" is ${stat.size} bytes, over the ${READ_MAX_BYTES}-byte limit of fs.read`,
        field: "path",
      })
    return { path: real, size: stat.size }
  })
