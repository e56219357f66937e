import { DIRECTORY_REFUSAL_PREFIX, resolveDirectory as resolveSessionDirectory } from "@opencode-ai/core"
import { Effect } from "effect"
import { InvalidRequestError } from "../api/errors.ts"

/**
 * A session's `directory` as given on create, checked and resolved by the core's rule (the one a plugin's
 * `ctx.session.create` applies too); a refusal is this route's 400 `InvalidRequestError` for the body's
 * `directory` field, worded like the other body errors.
 */
export const resolveDirectory = (directory: string): Effect.Effect<string, InvalidRequestError> =>
  resolveSessionDirectory(directory).pipe(
    Effect.mapError(
      (error) =>
        new InvalidRequestError({
          message: `Invalid body "directory": ${error.message.startsWith(DIRECTORY_REFUSAL_PREFIX) ? error.message.slice(DIRECTORY_REFUSAL_PREFIX.length) : error.message}`,
          field: "directory",
        }),
    ),
  )
