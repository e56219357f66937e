import { FileSystemEntry } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { located } from "./envelope.ts"
import { InvalidRequestError } from "./errors.ts"
import { LocationQuery } from "./params.ts"

/**
 * Files of a location, by the tools' confinement rules (a path that resolves outside the location, through
 * `..` or a symlink, is refused): upstream OpenCode v2's `v2.fs.*`. `fs.read` (`GET /api/fs/read/<path>`)
 * streams a file's bytes and is served beside the HttpApi routes.
 */
export class FsGroup extends HttpApiGroup.make("v2.fs")
  .add(
    HttpApiEndpoint.get("list", "/api/fs/list", {
      query: { ...LocationQuery, path: Schema.optionalKey(Schema.String) },
      success: located(Schema.Array(FileSystemEntry)),
      error: InvalidRequestError,
    }).annotate(OpenApi.Summary, "The direct children of one directory, relative to the location"),
    HttpApiEndpoint.get("find", "/api/fs/find", {
      query: {
        ...LocationQuery,
        query: Schema.String,
        type: Schema.optionalKey(Schema.Literals(["file", "directory"])),
        limit: Schema.optionalKey(Schema.String),
      },
      success: located(Schema.Array(FileSystemEntry)),
      error: InvalidRequestError,
    }).annotate(OpenApi.Summary, "Entries whose path matches `query` (a glob, or a substring), best matches first"),
  )
  .annotate(OpenApi.Description, "Files") {}
