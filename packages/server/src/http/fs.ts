import { findEntries, listDirectory, openFile } from "@opencode-ai/core"
import { Api, InvalidRequestError } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { fromCore } from "./errors.ts"
import { type LocationQuery, requestLocation, ServerDirectory } from "./location.ts"
import { errorResponse } from "./respond.ts"

/** `v2.fs.list` and `v2.fs.find`: a location's files, confined like the tools. */
export const FsHandlers = HttpApiBuilder.group(
  Api,
  "v2.fs",
  Effect.fn(function* (handlers) {
    const home = yield* ServerDirectory
    return handlers.handleAll({
      list: ({ query, request }) =>
        Effect.gen(function* () {
          const location = yield* requestLocation(query, request, home)
          return { location, data: yield* fromCore(listDirectory(location.directory, query.path)) }
        }),
      read: ({ query, request }) => readFile(query, request, home),
      find: ({ query, request }) =>
        Effect.gen(function* () {
          const location = yield* requestLocation(query, request, home)
          const data = yield* fromCore(
            findEntries(location.directory, query.query, {
              ...(query.type !== undefined ? { type: query.type } : {}),
              ...(query.limit !== undefined ? { limit: query.limit } : {}),
            }),
          )
          return { location, data }
        }),
    })
  }),
)

/** Where `fs.read` takes the file's path from: everything after this prefix, percent-decoded. */
const FS_READ_PREFIX = "/api/fs/read/"

/**
 * `GET /api/fs/read/<path>` (`v2.fs.read`): one file's bytes, its path relative to the location, served by
 * Bun from the file. Every refusal is the typed error's JSON body.
 */
const readFile = (query: LocationQuery, request: HttpServerRequest.HttpServerRequest, home: string) =>
  Effect.gen(function* () {
    const pathname = new URL(request.url, "http://host").pathname
    let path: string
    try {
      path = decodeURIComponent(pathname.slice(FS_READ_PREFIX.length))
    } catch {
      return yield* new InvalidRequestError({ message: "Invalid path: not percent-encoded UTF-8", field: "path" })
    }
    if (path === "")
      return yield* new InvalidRequestError({ message: "Name a file after /api/fs/read/", field: "path" })
    const location = yield* requestLocation(query, request, home)
    const file = yield* fromCore(openFile(location.directory, path))
    return HttpServerResponse.raw(
      new Response(Bun.file(file.path), {
        headers: { "content-type": "application/octet-stream", "content-length": String(file.size) },
      }),
    )
  }).pipe(Effect.catch((error) => Effect.succeed(HttpServerResponse.raw(errorResponse(error)))))
