import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { PathOutsideDirectoryError, ToolError } from "./tool.ts"

/**
 * Path confinement for the built-in tools: real paths, resolved one component at a time.
 * (docs/architecture.md, "Path confinement by real path, one component at a time")
 */

/** Maximum number of symlinks followed while resolving one path (Linux uses 40 as well). */
const MAX_SYMLINKS = 40

/** True when `candidate` is `root` itself or lies below it. Both must be absolute and normalised. */
export const isInside = (root: string, candidate: string): boolean => {
  const rel = nodePath.relative(root, candidate)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${nodePath.sep}`) && !nodePath.isAbsolute(rel))
}

/** `absolute` (a path inside `root`) as shown to the model: relative to the session root, `.` for the root. */
export const displayPath = (root: string, absolute: string): string => {
  const rel = nodePath.relative(root, absolute)
  return rel === "" ? "." : rel.split(nodePath.sep).join("/")
}

const errnoCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * The real path of the session directory. Fails with a ToolError when it does not exist or is not a
 * directory (the tools have nothing to work on then).
 */
export const sessionRoot = (tool: string, directory: string): Effect.Effect<string, ToolError> =>
  Effect.tryPromise({
    try: async () => {
      const root = await fs.realpath(nodePath.resolve(directory))
      const stat = await fs.stat(root)
      if (!stat.isDirectory()) throw new ToolError({ tool, message: "the session directory is not a directory" })
      return root
    },
    catch: (error) =>
      error instanceof ToolError
        ? error
        : new ToolError({ tool, message: `the session directory is not accessible: ${describe(error)}` }),
  })

/** Splits a path into its components, dropping empty ones and `.`; `..` is kept (resolved physically). */
const components = (p: string): Array<string> => p.split(/[\\/]+/).filter((c) => c !== "" && c !== ".")

/**
 * If `absolute` names something under the session directory — spelled either through its real path or
 * through the path it was configured with — returns the components below it; otherwise `undefined`.
 * This is a textual prefix test on the *unnormalised* string so that `<root>/../x` is walked (and
 * rejected at the `..`) instead of being collapsed first.
 */
const belowRoot = (absolute: string, prefixes: ReadonlyArray<string>): Array<string> | undefined => {
  for (const prefix of prefixes) {
    if (absolute === prefix) return []
    const withSep = prefix.endsWith(nodePath.sep) ? prefix : prefix + nodePath.sep
    if (absolute.startsWith(withSep)) return components(absolute.slice(withSep.length))
  }
  return undefined
}

type Resolution =
  | { readonly _tag: "Found"; readonly path: string }
  | { readonly _tag: "Missing"; readonly path: string }
  | { readonly _tag: "Outside" }
  | { readonly _tag: "Loop" }

/**
 * Walks `pending` (components relative to `root`) physically. `current` is always a real path inside
 * `root`; symlink targets are checked textually before anything they point to is touched.
 */
const walk = async (root: string, prefixes: ReadonlyArray<string>, initial: Array<string>): Promise<Resolution> => {
  // Stack of components still to resolve, top = next component (hence reversed).
  const pending = [...initial].reverse()
  let current = root
  let followed = 0
  let missing = false

  while (pending.length > 0) {
    const component = pending.pop()!
    if (component === "..") {
      current = nodePath.dirname(current)
      if (!isInside(root, current)) return { _tag: "Outside" }
      continue
    }
    const next = nodePath.join(current, component)
    if (missing) {
      // Something above does not exist: finish lexically only to tell "escapes" from "not found".
      current = next
      continue
    }
    let stat: import("node:fs").Stats
    try {
      stat = await fs.lstat(next)
    } catch (error) {
      const code = errnoCode(error)
      if (code === "ENOENT" || code === "ENOTDIR") {
        missing = true
        current = next
        continue
      }
      throw error
    }
    if (!stat.isSymbolicLink()) {
      current = next
      continue
    }
    followed += 1
    if (followed > MAX_SYMLINKS) return { _tag: "Loop" }
    const target = await fs.readlink(next)
    if (nodePath.isAbsolute(target)) {
      const below = belowRoot(target, prefixes)
      // An absolute target that is not spelled under the session directory is treated as outside
      // without looking at it — even if some other symlink chain out there would lead back in.
      if (below === undefined) return { _tag: "Outside" }
      current = root
      for (const c of below.reverse()) pending.push(c)
    } else {
      // Relative targets are resolved from the link's (real) parent directory, which is `current`.
      for (const c of components(target).reverse()) pending.push(c)
    }
  }

  if (missing) return { _tag: "Missing", path: current }
  return { _tag: "Found", path: current }
}

/**
 * The confinement error: `requested` (as the call spelled it) resolves outside the session directory.
 * Exported so that the apply-time checks of the file-changing tools fail with the very same error.
 */
export const outsideError = (tool: string, requested: string, access: "changed" | "accessed") =>
  new PathOutsideDirectoryError({
    tool,
    path: requested,
    message: `path "${requested}" is outside the session directory; only files inside it can be ${access}`,
  })

/**
 * The common first half of path resolution: refuses NUL bytes, resolves the session root, and walks
 * `requested` below it. Returns the walk's result with the error to raise when it leaves the directory.
 */
const walkRequested = (tool: string, directory: string, requested: string, access: "changed" | "accessed") =>
  Effect.gen(function* () {
    if (requested.includes("\0")) {
      return yield* new ToolError({ tool, message: `invalid path ${JSON.stringify(requested)}: contains a NUL byte` })
    }
    const root = yield* sessionRoot(tool, directory)
    const prefixes = [root, nodePath.resolve(directory)]
    const outside = outsideError(tool, requested, access)
    let initial: Array<string>
    if (nodePath.isAbsolute(requested)) {
      const below = belowRoot(requested, prefixes)
      if (below === undefined) return yield* outside
      initial = below
    } else initial = components(requested)
    const resolution = yield* Effect.tryPromise({
      try: () => walk(root, prefixes, initial),
      catch: (error) => new ToolError({ tool, message: `cannot resolve path "${requested}": ${describe(error)}` }),
    })
    return { root, outside, resolution }
  })

/**
 * Resolves a path a tool may write to: an existing file (its real path, which must be inside), or a path
 * that does not exist yet whose existing ancestors are all inside the session directory (symlinks on the
 * way are followed only when they stay inside). `..` is resolved physically; a new path may not climb out.
 */
export const resolveWritable = (
  tool: string,
  directory: string,
  requested: string,
): Effect.Effect<
  { readonly root: string; readonly path: string; readonly exists: boolean },
  PathOutsideDirectoryError | ToolError
> =>
  Effect.gen(function* () {
    if (requested.trim() === "") return yield* new ToolError({ tool, message: "path is empty" })
    const { root, outside, resolution } = yield* walkRequested(tool, directory, requested, "changed")
    switch (resolution._tag) {
      case "Outside":
        return yield* outside
      case "Loop":
        return yield* new ToolError({ tool, message: `path "${requested}": too many levels of symbolic links` })
      case "Missing": {
        if (!isInside(root, resolution.path) || resolution.path === root) return yield* outside
        // The deepest existing ancestor must really be inside (double-check of the walk).
        let ancestor = nodePath.dirname(resolution.path)
        for (;;) {
          const real = yield* Effect.tryPromise({
            try: () =>
              fs.realpath(ancestor).then(
                (p) => p,
                (error) => (errnoCode(error) === "ENOENT" ? undefined : Promise.reject(error)),
              ),
            catch: (error) =>
              new ToolError({ tool, message: `cannot resolve path "${requested}": ${describe(error)}` }),
          })
          if (real !== undefined) {
            if (!isInside(root, real)) return yield* outside
            break
          }
          ancestor = nodePath.dirname(ancestor)
        }
        return { root, path: resolution.path, exists: false }
      }
      case "Found":
        break
    }
    const real = yield* Effect.tryPromise({
      try: () => fs.realpath(resolution.path),
      catch: (error) => new ToolError({ tool, message: `cannot resolve path "${requested}": ${describe(error)}` }),
    })
    if (!isInside(root, real)) return yield* outside
    return { root, path: real, exists: true }
  })

/**
 * Resolves `requested` (relative to the session directory, or absolute) to the real absolute path of an
 * existing file or directory inside `directory`.
 * - `../x`, `/etc/passwd`, or any absolute path not under the directory: PathOutsideDirectoryError.
 * - a symlink (at any component, file or directory) whose target leaves the directory:
 *   PathOutsideDirectoryError — also when that target does not exist.
 * - a path inside that does not exist: ToolError "not found".
 */
export const resolveInside = (
  tool: string,
  directory: string,
  requested: string,
): Effect.Effect<string, PathOutsideDirectoryError | ToolError> =>
  Effect.map(resolveInsideWithRoot(tool, directory, requested), (r) => r.path)

/** Like {@link resolveInside}, also returning the real path of the session directory. */
export const resolveInsideWithRoot = (
  tool: string,
  directory: string,
  requested: string,
): Effect.Effect<{ readonly root: string; readonly path: string }, PathOutsideDirectoryError | ToolError> =>
  Effect.gen(function* () {
    const { root, outside, resolution } = yield* walkRequested(tool, directory, requested, "accessed")
    switch (resolution._tag) {
      case "Outside":
        return yield* outside
      case "Loop":
        return yield* new ToolError({ tool, message: `path "${requested}": too many levels of symbolic links` })
      case "Missing":
        return yield* new ToolError({ tool, message: `path "${requested}" not found` })
      case "Found":
        break
    }

    // Belt and braces: the walk already produced a symlink-free path; realpath must agree it is inside.
    const real = yield* Effect.tryPromise({
      try: () => fs.realpath(resolution.path),
      catch: (error) =>
        errnoCode(error) === "ENOENT"
          ? new ToolError({ tool, message: `path "${requested}" not found` })
          : new ToolError({ tool, message: `cannot resolve path "${requested}": ${describe(error)}` }),
    })
    if (!isInside(root, real)) return yield* outside
    return { root, path: real }
  })

/**
 * Re-confines, when an approved call is about to write, a path that {@link resolveWritable} resolved when
 * the call was planned. Between the two the call may have waited for permission (minutes, or a restart),
 * and any component of the path may have been replaced meanwhile — a directory by a symlink leading out,
 * the file itself by a link to a file outside. The whole path is resolved again, parents included: one
 * that now leads outside fails with the confinement error; one that now leads to another place inside
 * fails too, because that is not the file whose change was shown and approved. Nothing is written here.
 */
export const confirmWritable = (
  tool: string,
  directory: string,
  requested: string,
  planned: { readonly path: string; readonly shown: string },
): Effect.Effect<void, PathOutsideDirectoryError | ToolError> =>
  Effect.gen(function* () {
    const now = yield* resolveWritable(tool, directory, requested)
    if (now.path === planned.path) return
    return yield* new ToolError({
      tool,
      message: `path "${requested}" now leads to "${displayPath(now.root, now.path)}" instead of "${planned.shown}", which was planned; nothing was changed`,
    })
  })
