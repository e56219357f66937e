import { Cause, Clock, Effect } from "effect"
import { draft, type Draft } from "../../bus/event.ts"
import { ascending } from "../../id/id.ts"
import { SessionEvent } from "../../domain/event.ts"
import type { Message, ToolItem, UserMessage } from "../../domain/message.ts"
import type { ModelRef } from "../../domain/model-request.ts"
import type { CallOutcome, CallScope } from "./tool-call.ts"

/**
 * The prompt of a `subtask: true` command that still has to run: the latest user message, when it names a
 * subtask and no assistant message follows it. Notices delivered after it (a restart notice) do not count:
 * a turn cut off before its task call was committed runs the task when it resumes.
 */
export const pendingSubtask = (
  transcript: ReadonlyArray<Message>,
): (UserMessage & { readonly subtask: NonNullable<UserMessage["subtask"]> }) | undefined => {
  const index = transcript.findLastIndex((message) => message.type === "user" && !message.retracted)
  const prompt = transcript[index]
  if (prompt?.type !== "user" || !prompt.subtask) return undefined
  if (transcript.slice(index + 1).some((message) => message.type === "assistant")) return undefined
  return prompt as UserMessage & { readonly subtask: NonNullable<UserMessage["subtask"]> }
}

/**
 * The turn of a subtask prompt: instead of a model request, one assistant message holding one `task`
 * call (the prompt's text, for the command's subagent) that runs through the permission layer and the
 * subagent machinery like a call the model made: a child session with `parentID`, the child's final text
 * as the output. The turn then ends; the primary model sees the call and its output on the next turn.
 */
export const makeSubtaskStep = (deps: {
  readonly commit: (sessionID: string, drafts: ReadonlyArray<Draft>) => Effect.Effect<unknown>
  readonly run: (scope: CallScope, call: ToolItem) => Effect.Effect<CallOutcome>
  /** Whether the message must stay open across a shutdown (its call waits, or its child resumes). */
  readonly waiting: (sessionID: string, messageID: string) => boolean
}) => {
  const { commit } = deps
  return (
    turn: { readonly sessionID: string; readonly turnID: string },
    prompt: UserMessage & { readonly subtask: NonNullable<UserMessage["subtask"]> },
    selection: { readonly agentID: string; readonly model: ModelRef; readonly directory: string },
  ) =>
    Effect.gen(function* () {
      const messageID = ascending("msg")
      const itemID = ascending("prt")
      const callID = `call_${itemID.slice(itemID.indexOf("_") + 1)}`
      const input = {
        description: prompt.subtask.description,
        prompt: prompt.text,
        subagent_type: prompt.subtask.agent,
      }
      yield* commit(turn.sessionID, [
        draft(SessionEvent.StepStarted, {
          assistantMessageID: messageID,
          turnID: turn.turnID,
          agent: selection.agentID,
          model: selection.model,
        }),
        draft(SessionEvent.ToolInputStarted, { assistantMessageID: messageID, callID, name: "task", itemID }),
        draft(SessionEvent.ToolInputEnded, { assistantMessageID: messageID, callID, text: JSON.stringify(input) }),
      ])
      const call: ToolItem = {
        type: "tool",
        id: itemID,
        callID,
        name: "task",
        state: { status: "running", input, structured: {}, content: [] },
        time: { created: yield* Clock.currentTimeMillis },
      }
      let settled = false
      yield* Effect.gen(function* () {
        const scope: CallScope = {
          sessionID: turn.sessionID,
          messageID,
          agentID: selection.agentID,
          directory: selection.directory,
        }
        yield* deps.run(scope, call)
        settled = true
        yield* commit(turn.sessionID, [
          draft(SessionEvent.StepEnded, {
            assistantMessageID: messageID,
            finish: "stop",
            cost: 0,
            tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          }),
        ])
      }).pipe(
        Effect.onExit((exit) => {
          if (exit._tag === "Success") return Effect.void
          const interrupted = Cause.hasInterruptsOnly(exit.cause)
          // Stopped while the child runs (or its call waits for permission): the next start finishes it.
          if (interrupted && deps.waiting(turn.sessionID, messageID)) return Effect.void
          const message = interrupted ? "the turn was interrupted" : "the turn failed"
          return commit(turn.sessionID, [
            ...(settled
              ? []
              : [
                  draft(SessionEvent.ToolFailed, {
                    assistantMessageID: messageID,
                    callID,
                    error: { type: "unknown", message },
                    provider: { executed: false },
                  }),
                ]),
            draft(SessionEvent.StepFailed, {
              assistantMessageID: messageID,
              finish: interrupted ? "interrupted" : "error",
              error: { type: "unknown", name: interrupted ? "Interrupted" : "UnknownError", message },
            }),
          ]).pipe(Effect.ignore)
        }),
      )
      return { outcome: "completed" as const }
    })
}
