import { Schema } from "effect"

/**
 * One language server the host knows of, for a directory it serves: `available` (found, not started yet),
 * `starting`, `running`, `crashed` (restarts on next use after a backoff), `failed` (could not start),
 * `stopped` (idle); with its pid while running, its restart count and its last error.
 */
export const LspServerStatus = Schema.Struct({
  name: Schema.String,
  /** The directory it serves (a session directory). */
  root: Schema.String,
  status: Schema.Literals(["available", "starting", "running", "crashed", "failed", "stopped"]),
  extensions: Schema.Array(Schema.String),
  pid: Schema.optional(Schema.Int),
  restarts: Schema.Int,
  error: Schema.optional(Schema.String),
}).annotate({ identifier: "LspServerStatus" })
export type LspServerStatus = typeof LspServerStatus.Type
