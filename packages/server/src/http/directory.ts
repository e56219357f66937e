import { Effect } from "effect"
import { realpath, stat } from "node:fs/promises"
import { isAbsolute } from "node:path"
import { InvalidRequestError } from "../api/errors.ts"

const refuse = (directory: string, why: string) =>
  new InvalidRequestError({
    message: `Invalid body "directory": ${JSON.stringify(directory.slice(0, 500))} ${why}`,
    field: "directory",
  })

/**
 * A session's `directory` as given on create: it must be an absolute path naming an existing directory,
 * and is stored resolved (symlinks followed), so every tool confined to it agrees on one real path.
 * (DESIGN, "Security boundary".) The checks use the asynchronous file system calls.
 */
export const resolveDirectory = (directory: string): Effect.Effect<string, InvalidRequestError> =>
  Effect.tryPromise({
    try: async () => {
      if (directory.includes("\u0000")) throw refuse(directory, "contains a NUL character")
      if (!isAbsolute(directory)) throw refuse(directory, "is not an absolute path")
      let real: string
      try {
        real = await realpath(directory)
      } catch (cause) {
        const code = (cause as NodeJS.ErrnoException).code
        throw refuse(
          directory,
          code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be resolved (${code ?? "error"})`,
        )
      }
      if (!(await stat(real)).isDirectory()) throw refuse(directory, "is not a directory")
      return real
    },
    catch: (cause) =>
      cause instanceof InvalidRequestError
        ? cause
        : refuse(directory, `cannot be read (${String((cause as Error)?.message ?? cause)})`),
  })
