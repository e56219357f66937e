import { Effect } from "effect"
import { realpath, stat } from "node:fs/promises"
import { isAbsolute } from "node:path"
import { InvalidInputError } from "../domain/error.ts"

/** The start of every refusal's message; the HTTP layer swaps it for its own wording. */
export const DIRECTORY_REFUSAL_PREFIX = "directory "

const refuser = (field: string) => (directory: string, why: string) =>
  new InvalidInputError({
    // Capped: the path is echoed back to the caller and may be arbitrarily long.
    message: `${DIRECTORY_REFUSAL_PREFIX}${JSON.stringify(directory.slice(0, 500))} ${why}`,
    field,
  })

/**
 * The one rule for a location's `directory` (a session's on create, a query's `location[directory]`),
 * shared by the HTTP API and a plugin's `ctx.session.create`: it must be an absolute path without NUL
 * naming an existing directory, and it is returned resolved (symlinks followed, dot segments gone), so every
 * tool confined to it agrees on one real path. Anything else fails with `Session.InvalidInputError` naming
 * `field` (default `location.directory`). Only asynchronous file system calls: this runs on the request path.
 */
export const resolveDirectory = (
  directory: string,
  field = "location.directory",
): Effect.Effect<string, InvalidInputError> => {
  const refuse = refuser(field)
  return Effect.tryPromise({
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
      cause instanceof InvalidInputError
        ? cause
        : refuse(directory, `cannot be read (${String((cause as Error)?.message ?? cause)})`),
  })
}
