import type { HookEvents } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { type HooksShape, recordedHookError } from "../hooks/hooks.ts"
import type { ErrorInfo } from "../domain/message.ts"

/** What the `prompt` or `synthetic` hook left of an input's text: the text to admit, and any failure. */
export interface HookEdit {
  /** The plugins' edit when every callback succeeded and left a non-empty string; the original otherwise. */
  readonly text: string
  /** Set when a callback failed: the turn this input starts fails with it, recorded on the turn. */
  readonly failure?: ErrorInfo
}

/**
 * Runs the hook that may rewrite an input's text before it is stored. The event's `text` on entry is the
 * original. A failing callback keeps the original, even if an earlier plugin had edited it: a half-applied
 * chain of edits is never stored. An edit that is not a non-empty string is ignored the same way. A callback
 * that outlives `timeout` (ms) is a failure like a throw: the input is admitted as it was and its turn fails.
 */
export const hookEdit = <K extends "prompt" | "synthetic">(
  hooks: HooksShape,
  name: K,
  event: HookEvents[K],
  timeout: number,
): Effect.Effect<HookEdit> => {
  const original = event.text
  return Effect.map(Effect.result(hooks.run(name, event, { timeout })), (result) => {
    if (result._tag === "Failure") return { text: original, failure: recordedHookError(result.failure) }
    return { text: typeof event.text === "string" && event.text ? event.text : original }
  })
}
