import { locationInfo, resolveDirectory } from "@opencode-ai/core"
import { InvalidRequestError } from "@opencode-ai/protocol"
import type { LocationInfo } from "@opencode-ai/schema"
import { Context, Effect } from "effect"
import type { HttpServerRequest } from "effect/http"

/**
 * The location a request works in: `location[directory]` (or its alias `directory`) in the query, else
 * the `x-opencode-directory` header upstream's client sends (percent-encoded), else `server`, the server's
 * own directory. A named directory must exist; it is used resolved (symlinks followed). A directory that does
 * not is 400 naming the field, never silently the server's.
 */
export const requestLocation = (
  query: LocationQuery,
  request: HttpServerRequest.HttpServerRequest,
  server: string,
): Effect.Effect<LocationInfo, InvalidRequestError> => resolveLocation(query, clientDirectory(request), server)

export interface LocationQuery {
  readonly "location[directory]"?: string | undefined
  readonly directory?: string | undefined
}

/** `requestLocation` with the header and the server's directory given. */
export const resolveLocation = (
  query: LocationQuery,
  header: string | undefined,
  server: string,
): Effect.Effect<LocationInfo, InvalidRequestError> =>
  Effect.gen(function* () {
    const given = query["location[directory]"] ?? query.directory
    const field = query["location[directory]"] !== undefined ? "location.directory" : "directory"
    if (given !== undefined) return locationInfo(yield* checked(given, field))
    if (header !== undefined) return locationInfo(yield* checked(header, "x-opencode-directory"))
    return locationInfo(yield* checked(server, "directory"))
  })

/** The `x-opencode-directory` header, decoded; undefined without one. */
export const clientDirectory = (request: HttpServerRequest.HttpServerRequest) =>
  decodeHeader(request.headers["x-opencode-directory"])

/** An `x-opencode-directory` value, percent-decoded (upstream's client encodes it). */
export const decodeHeader = (raw: string | null | undefined) => {
  if (raw === undefined || raw === null || raw === "") return undefined
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** A directory as given by a request, resolved by the core's rule; a refusal is a 400 naming the field. */
export const checked = (directory: string, field: string) =>
  resolveDirectory(directory, field).pipe(
    Effect.mapError((error) => new InvalidRequestError({ message: `Invalid ${field}: ${error.message}`, field })),
  )

/**
 * The server's own location: where a request that names none works (`location.get` without a directory,
 * a session created with no location and no `x-opencode-directory`). The directory `opencode2 serve` was
 * started in, unless the embedder says otherwise.
 */
export class ServerDirectory extends Context.Service<ServerDirectory, string>()(
  "@opencode-ai/server/ServerDirectory",
) {}
