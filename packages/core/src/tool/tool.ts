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

/**
 * `webfetch` refused to connect: the URL's host is, or resolves to, an address that is not public
 * (loopback, private, link-local, ...) and the config does not allow it. Names the host and the address.
 */
export class ForbiddenAddressError extends Schema.TaggedError<ForbiddenAddressError>()("Tool.ForbiddenAddressError", {
  tool: Schema.String,
  url: Schema.String,
  host: Schema.String,
  address: Schema.String,
  reason: Schema.String,
  message: Schema.String,
}) {}

export interface ToolContext {
  readonly sessionID: string
  /** The session's working directory; tools must not touch anything outside it. */
  readonly directory: string
  readonly signal: AbortSignal
  /** The environment for child processes (bash), secrets already removed. Default: `process.env` minus secrets. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** The assistant message and provider call id of this call: what a durable request (a question) points back to. */
  readonly messageID?: string
  readonly callID?: string
}

/** Which permission rule governs a tool call (docs/tools.md). */
export type PermissionKey = "read" | "edit" | "bash" | "webfetch" | "todowrite" | "todoread" | "question"

/** What a tool call produced: the text the model sees, and data kept on the tool part (`metadata.diff`). */
export interface ToolResult {
  readonly output: string
  readonly metadata?: { readonly [key: string]: unknown }
}

/**
 * A validated tool call, ready to run once permitted. Planning does everything that can fail without
 * side effects (decode, confine paths, find `oldString`, check every patch hunk), so a call that could
 * never succeed fails before anyone is asked, and an ask can show exactly what would change.
 */
export interface ToolPlan {
  readonly permission: PermissionKey
  /**
   * What the rules match against: file paths relative to the session directory, or each simple command
   * of a bash line (`bash-commands.ts`). An `always` answer grants exactly these.
   */
  readonly patterns: ReadonlyArray<string>
  /**
   * Patterns whose meaning could not be read statically (a bash command named by `$CMD`, a line that does
   * not parse): a rule may deny or ask them but never allow them.
   */
  readonly unresolved?: ReadonlyArray<string>
  /** One line for the person asked ("edit src/a.ts"). */
  readonly title: string
  /** Shown with the ask and stored on the part (the diff of an edit). */
  readonly metadata?: { readonly [key: string]: unknown }
  /** Performs the call. */
  run(): Effect.Effect<ToolResult, ToolError | PathOutsideDirectoryError | ForbiddenAddressError>
}

/**
 * A tool the agent may call. `input` is decoded before `execute` runs; its JSON Schema is what the model
 * sees. The output string is what is stored on the tool part and sent back to the model.
 */
export interface Tool<I = any> {
  readonly name: string
  readonly description: string
  readonly input: Schema.Codec<I, any>
  execute(
    input: I,
    ctx: ToolContext,
  ): Effect.Effect<string, ToolError | PathOutsideDirectoryError | ForbiddenAddressError>
  /**
   * Plans a call (see {@link ToolPlan}). Tools that change files implement it; for the others the registry
   * derives a plan from `execute`.
   */
  plan?(input: I, ctx: ToolContext): Effect.Effect<ToolPlan, ToolError | PathOutsideDirectoryError>
}
