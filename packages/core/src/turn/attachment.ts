import type { PromptFileAttachment, PromptInputFileAttachment } from "@opencode-ai/schema"
import { Effect } from "effect"
import { stat } from "node:fs/promises"
import { extname, isAbsolute } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { resolveInside } from "../tool/path.ts"
import { InvalidInputError } from "../domain/error.ts"

/** Media types by extension, for what a prompt most often attaches; anything else is `text/plain`. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".json": "application/json",
  ".md": "text/markdown",
  ".html": "text/html",
}

export const mediaType = (path: string) => MEDIA_TYPES[extname(path).toLowerCase()] ?? "text/plain"

/**
 * A prompt's file attachments, checked at admission: each `uri` is a `file://` URI (or a path, relative
 * to the session directory) naming a regular file inside the session directory, by the same confinement
 * rules as the tools. Stored as the file's real `file://` URI with its media type; anything else is
 * refused with `Session.InvalidInputError` naming the attachment, and nothing is stored.
 */
export const resolveAttachments = (
  directory: string,
  files: ReadonlyArray<PromptInputFileAttachment> | undefined,
): Effect.Effect<ReadonlyArray<PromptFileAttachment> | undefined, InvalidInputError> =>
  files === undefined
    ? Effect.succeed(undefined)
    : Effect.forEach(files, (file, index) => {
        const field = `prompt.files.${index}.uri`
        const refuse = (why: string) => new InvalidInputError({ message: `attachment ${index}: ${why}`, field })
        return Effect.gen(function* () {
          let path: string
          try {
            path = file.uri.startsWith("file:") ? fileURLToPath(file.uri) : file.uri
          } catch {
            return yield* refuse(`${JSON.stringify(file.uri.slice(0, 200))} is not a file:// URI or a path`)
          }
          if (!file.uri.startsWith("file:") && /^[a-z][a-z0-9+.-]*:/i.test(file.uri))
            return yield* refuse(`only file:// URIs can be attached, not ${JSON.stringify(file.uri.slice(0, 200))}`)
          const real = yield* resolveInside("attachment", directory, path).pipe(
            Effect.mapError((error) => refuse(error.message)),
          )
          const info = yield* Effect.promise(() => stat(real))
          if (!info.isFile()) return yield* refuse(`${JSON.stringify(path)} is not a file`)
          return {
            uri: pathToFileURL(real).href,
            mime: mediaType(real),
            ...(file.name !== undefined ? { name: file.name } : isAbsolute(path) ? {} : { name: path }),
            ...(file.description !== undefined ? { description: file.description } : {}),
            ...(file.source !== undefined ? { source: file.source } : {}),
          } satisfies PromptFileAttachment
        })
      })
