import { Schema, type Effect } from "effect"

/** A tool call failed in a way the model should see (bad input, missing file, path outside the session). */
export class ToolError extends Schema.TaggedError<ToolError>()("Tool.Error", {
  tool: Schema.String,
  message: Schema.String,
}) {}

/** A path named by a tool call resolves outside the session directory. Never read, never listed. */
export class PathOutsideDirectoryError extends Schema.TaggedError<PathOutsideDirectoryError>()(
  "Tool.PathOutsideDirectoryError",
  { tool: Schema.String, path: Schema.String, message: Schema.String },
) {}

export interface ToolContext {
  readonly sessionID: string
  /** The session's working directory; tools must not touch anything outside it. */
  readonly directory: string
  readonly signal: AbortSignal
}

/**
 * A tool the agent may call. `input` is decoded before `execute` runs; its JSON Schema is what the model
 * sees. The output string is what is stored on the tool part and sent back to the model.
 */
export interface Tool<I = any> {
  readonly name: string
  readonly description: string
  readonly input: Schema.Codec<I, any>
  execute(input: I, ctx: ToolContext): Effect.Effect<string, ToolError | PathOutsideDirectoryError>
}
