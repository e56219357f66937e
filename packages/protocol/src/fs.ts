import { FileSystemEntry } from "@opencode-ai/schema"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { located } from "./envelope.ts"
import { InvalidRequestError } from "./errors.ts"
import { LocationQuery } from "./params.ts"

/**
 * Files of a location, by the tools' confinement rules (a path that resolves outside the location, through
 * `..` or a symlink, is refused): upstream OpenCode v2's `v2.fs.*`.
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
    // The file's path is the rest of the URL (`*`), percent-decoded by the handler.
    HttpApiEndpoint.get("read", "/api/fs/read/*", {
      query: LocationQuery,
      success: HttpApiSchema.StreamUint8Array(),
      error: InvalidRequestError,
    })
      .annotate(OpenApi.Summary, "Read file")
      .annotate(
        OpenApi.Description,
        "The bytes of one file, its path (after `/api/fs/read/`) relative to the location. Confined like the tools: " +
          "a path that resolves outside the location is 400 `InvalidRequestError`.",
      ),
  )
  .annotate(OpenApi.Description, "Files") {}
