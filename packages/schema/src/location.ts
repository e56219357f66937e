import { Schema } from "effect"

/**
 * Where a session works: an existing directory, stored as its real path. Requests name it with
 * `location: { directory }` (bodies) or `location[directory]=` / `directory=` (queries).
 */
export const LocationRef = Schema.Struct({
  directory: Schema.String,
  workspaceID: Schema.optional(Schema.String),
}).annotate({ identifier: "LocationRef" })
export type LocationRef = typeof LocationRef.Type

/**
 * A resolved location. The host has no project registry: a location's project is its directory, with a
 * stable id derived from the path.
 */
export const LocationInfo = Schema.Struct({
  directory: Schema.String,
  workspaceID: Schema.optional(Schema.String),
  project: Schema.Struct({ id: Schema.String, directory: Schema.String }),
}).annotate({ identifier: "LocationInfo" })
export type LocationInfo = typeof LocationInfo.Type

/** An entry of a directory listing or a file search, its path relative to the location. */
export const FileSystemEntry = Schema.Struct({
  path: Schema.String,
  type: Schema.Literals(["file", "directory"]),
}).annotate({ identifier: "FileSystemEntry" })
export type FileSystemEntry = typeof FileSystemEntry.Type
