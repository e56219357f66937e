import type { ToolPermissionError } from "@opencode-ai/plugin"
import { Schema, type Effect } from "effect"
import type { PermissionKey } from "../config/permission.ts"

export type { PermissionKey }

/** A tool call failed in a way the model should see (bad input, missing file, path outside the session). */
export class ToolError extends Schema.TaggedError<ToolError>()("Tool.Error", {
  tool: Schema.String,
  message: Schema.String,
  /** The plugin whose tool failed (plugin tools only): recorded on the call's error. */
  pluginID: Schema.optional(Schema.String),
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
  /** The tool item of this call (`prt_...`): stable across a restart, so a resumed call can find what it started. */
  readonly itemID?: string
  /** The assistant message holding the call, and the provider's id of the call. */
  readonly messageID?: string
  readonly callID?: string
  /** The agent whose turn made the call. */
  readonly agentID?: string
  /**
   * Where a file-changing tool stores the before-images of what it changes (the host's blob store), so a
   * revert can undo the change. Without it (a tool run outside a session) nothing is recorded.
   */
  readonly images?: BeforeImages
  /**
   * The whole output of an earlier plugin or MCP tool call of this session, stored when it was over the
   * cap (`tool-output://sha256:<hex>`); undefined when this session never produced that address.
   */
  readonly toolOutput?: (uri: string) => Promise<string | undefined>
  /**
   * Asks for permission from inside a running call (plugin tools' `ctx.ask`): the rules of `permission`
   * over `patterns` decide, an `ask` waits for the user. Absent outside a session's turn.
   */
  readonly ask?: (request: {
    readonly permission: PermissionKey
    readonly patterns: ReadonlyArray<string>
    readonly title: string
    readonly metadata?: { readonly [key: string]: unknown }
  }) => Effect.Effect<void, ToolPermissionError>
}

/** Stores a text content-addressed; answers its `sha256:<hex>` reference. */
export interface BeforeImages {
  /** Stores `content`; `known` is its reference when the caller already knows it (no hashing then). */
  put(content: string, known?: string): Promise<string>
  /**
   * The reference of what a tool call wrote to `path`, if the file's fingerprint is still the one it had
   * right after that write: the content is then known without hashing it again.
   */
  recall?(path: string, print: string): string | undefined
  /** Notes what a call just wrote to `path` (its reference and the file's fingerprint after the write). */
  remember?(path: string, print: string, ref: string | null): void
  /**
   * Starts computing a content's reference off the JavaScript thread: a tool calls it when it plans a
   * change and hands the promise to the write (`RecordedChange.afterRef`), which then need not hash.
   */
  refAhead?(content: string): Promise<string>
}

/**
 * What undoing one file change needs, kept on the tool part (`metadata.files`): the path relative to the
 * session directory, the before-image (`null`: the file did not exist) and the reference of what was
 * written (`null`: the file was deleted), by which a revert tells whether the file changed since.
 */
export interface FileRecord {
  readonly path: string
  readonly before: string | null
  readonly after: string | null
}

/** What a tool call produced: the text the model sees, and data kept on the tool part (`metadata.diff`). */
export interface ToolResult {
  readonly output: string
  /** Replaces the plan's title on the stored call (a plugin tool's own title). */
  readonly title?: string
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
  /**
   * The JSON Schema sent to the model, when it does not come from `input` (an MCP server's tool declares
   * its own; `input` then only checks that the arguments are an object).
   */
  readonly parameters?: { readonly type: "object"; readonly [key: string]: unknown }
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
