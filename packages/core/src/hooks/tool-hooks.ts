import type { ToolExecuteAfterEvent, ToolExecuteBeforeEvent } from "@opencode-ai/plugin"
import { Effect } from "effect"
import type { HookError, Hooks } from "./hooks.ts"

/** The call a tool hook is about. */
export interface ToolCallRef {
  readonly sessionID: string
  readonly messageID: string
  readonly itemID: string
  readonly callID: string
  readonly agentID: string
  readonly tool: string
}

/** What `tool.execute.before` decided: run with these arguments, or refuse with the blocking plugin's reason. */
export type BeforeOutcome =
  | { readonly _tag: "run"; readonly args: unknown }
  | { readonly _tag: "blocked"; readonly pluginID: string; readonly reason: string }

/** The stored result of a call, as `tool.execute.after` may have changed it. */
export interface CallResult {
  readonly output: string
  readonly title: string
  readonly metadata: Record<string, unknown>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The tool hooks, run around every tool call (built-in, MCP, plugin) by the tool caller. Each callback is
 * awaited in plugin order and bounded by `timeout`; a failure is a `HookError` naming the plugin and the
 * hook, which the caller turns into that call's error (the turn goes on). Without registrations nothing
 * is copied or allocated beyond the check.
 */
export const makeToolHooks = (hooks: Hooks["Service"], timeout: number) => ({
  /** `tool.execute.before`: plugins see a copy of the arguments; the first one to set `block` is named as the blocker. */
  before: (ref: ToolCallRef, args: unknown): Effect.Effect<BeforeOutcome, HookError> => {
    if (hooks.list("tool.execute.before").length === 0) return Effect.succeed({ _tag: "run", args })
    const event: ToolExecuteBeforeEvent = { ...ref, args: structuredClone(args) }
    let blocker: { pluginID: string; reason: string } | undefined
    return hooks
      .run("tool.execute.before", event, {
        timeout,
        each: (pluginID) => {
          if (blocker === undefined && typeof event.block === "string" && event.block.trim() !== "")
            blocker = { pluginID, reason: event.block }
        },
      })
      .pipe(
        Effect.map((): BeforeOutcome =>
          blocker ? { _tag: "blocked", ...blocker } : { _tag: "run", args: event.args },
        ),
      )
  },
  /** `tool.execute.after`: plugins edit the output, title and metadata before they are stored. */
  after: (ref: ToolCallRef, args: unknown, result: CallResult): Effect.Effect<CallResult, HookError> => {
    if (hooks.list("tool.execute.after").length === 0) return Effect.succeed(result)
    const event: ToolExecuteAfterEvent = {
      ...ref,
      args: structuredClone(args),
      output: result.output,
      title: result.title,
      metadata: structuredClone(result.metadata),
    }
    return hooks.run("tool.execute.after", event, { timeout }).pipe(
      Effect.map(() => ({
        output: typeof event.output === "string" ? event.output : String(event.output),
        title: typeof event.title === "string" ? event.title : result.title,
        metadata: isRecord(event.metadata) ? event.metadata : result.metadata,
      })),
    )
  },
})

export type ToolHooks = ReturnType<typeof makeToolHooks>
