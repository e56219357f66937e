import { Cause, Effect } from "effect"
import { draft, type Draft } from "../../bus/event.ts"
import { type Answer, Permissions, type PermissionRequest } from "../../permission/permission.ts"
import { planTool } from "../../tool/registry.ts"
import type { Tool, ToolPlan } from "../../tool/tool.ts"
import { SessionEvent } from "../event.ts"
import type { ToolPart } from "../message.ts"
import type { Session } from "../session.ts"

/** Where a call runs: the session, its directory, the assistant message holding the part, the agent. */
export interface CallScope {
  readonly sessionID: string
  readonly messageID: string
  readonly agentID: string
  readonly directory: string
}

/** A settled tool part, and whether the turn must stop after it (a reject without a message). */
export interface CallOutcome {
  readonly part: ToolPart
  readonly stop: boolean
}

/** Set on calls after a rejected one in the same message: they never ran. */
export const SKIPPED_AFTER_REJECT = "not run: an earlier tool call in this answer was rejected"

const errorPart = (call: ToolPart, error: string, metadata?: ToolPart["metadata"]): ToolPart => ({
  ...call,
  state: "error",
  error,
  ...(metadata ? { metadata } : {}),
})

const rejection = (answer: Answer) =>
  answer.message !== undefined && answer.message.trim() !== ""
    ? `the user rejected this call: ${answer.message}`
    : "the user rejected this call"

/**
 * Runs tool calls behind the permission layer (DESIGN "Tools and permissions"): plan (nothing touched
 * yet; a call that cannot succeed fails here without asking), decide (rules, session grants, plugin
 * hook), ask durably and wait when the decision is `ask`, then run. Also finishes, after a restart, an
 * answer whose call waited for permission: the stored call runs once, the model is not asked again.
 */
export const makeToolCaller = (deps: {
  readonly tools: ReadonlyArray<Tool>
  readonly permissions: Permissions["Service"]
  readonly session: Session["Service"]
  readonly env: Readonly<Record<string, string | undefined>>
  readonly commit: (sessionID: string, drafts: ReadonlyArray<Draft>) => Effect.Effect<unknown>
}) => {
  const { permissions, session, commit } = deps
  const byName = new Map(deps.tools.map((tool) => [tool.name, tool]))

  /** One call. `pending` is the ask a previous process left for it (restart). */
  const run = (scope: CallScope, call: ToolPart, pending?: PermissionRequest): Effect.Effect<CallOutcome> => {
    const controller = new AbortController()
    return Effect.gen(function* () {
      const tool = byName.get(call.tool)
      if (!tool) return { part: errorPart(call, `unknown tool "${call.tool}"`), stop: false }
      const ctx = { sessionID: scope.sessionID, directory: scope.directory, signal: controller.signal, env: deps.env }
      const planned = yield* Effect.result(planTool(tool, call.input, ctx))
      if (planned._tag === "Failure") {
        // A pending ask whose call can no longer be planned still needs its answer consumed first.
        if (pending) yield* permissions.answer(pending.id)
        return { part: errorPart(call, planned.failure.message), stop: false }
      }
      const plan: ToolPlan = planned.success
      let answer: Answer | undefined
      if (pending) {
        answer = yield* permissions.answer(pending.id)
      } else {
        const decided = yield* Effect.result(
          permissions.decide({
            sessionID: scope.sessionID,
            agentID: scope.agentID,
            tool: call.tool,
            input: call.input,
            plan,
          }),
        )
        if (decided._tag === "Failure") {
          const failure = decided.failure
          return {
            part: errorPart(
              call,
              `the permission hook of plugin "${failure.pluginID}" failed: ${failure.message}; the call was not run`,
            ),
            stop: false,
          }
        }
        if (decided.success === "deny") {
          return {
            part: errorPart(
              call,
              `permission denied: "${plan.title}" is not allowed by the ${plan.permission} permission rules`,
            ),
            stop: false,
          }
        }
        if (decided.success === "ask") {
          const permissionID = yield* permissions.ask({
            sessionID: scope.sessionID,
            messageID: scope.messageID,
            partID: call.id,
            callID: call.callID,
            tool: call.tool,
            input: call.input,
            plan,
          })
          answer = yield* permissions.answer(permissionID)
        }
      }
      if (answer?.reply === "reject") {
        return {
          part: errorPart(call, rejection(answer), plan.metadata),
          stop: answer.message === undefined || answer.message.trim() === "",
        }
      }
      if (pending && JSON.stringify(pending.metadata["diff"]) !== JSON.stringify(plan.metadata?.["diff"])) {
        return {
          part: errorPart(
            call,
            "the files changed after permission was asked; nothing was changed, read them again and redo the call",
          ),
          stop: false,
        }
      }
      const result = yield* Effect.result(plan.run())
      if (result._tag === "Failure")
        return { part: errorPart(call, result.failure.message, plan.metadata), stop: false }
      const metadata = result.success.metadata
      return {
        part: {
          ...call,
          state: "completed" as const,
          output: result.success.output,
          ...(metadata ? { metadata: { ...metadata } } : {}),
        },
        stop: false,
      }
    }).pipe(
      Effect.catchDefect((defect) =>
        Effect.succeed<CallOutcome>({
          part: errorPart(
            call,
            `tool "${call.tool}" failed unexpectedly: ${defect instanceof Error ? defect.message : String(defect)}`,
          ),
          stop: false,
        }),
      ),
      Effect.onInterrupt(() => Effect.sync(() => controller.abort())),
    )
  }

  /** Whether an assistant message has an ask still waiting (it must stay open across a shutdown). */
  const waiting = (sessionID: string, messageID: string) =>
    permissions.sync.pending(sessionID).some((ask) => ask.messageID === messageID)

  /**
   * After a restart: an answer of `turnID` cut off while a call waited for permission is finished — the
   * waiting call runs once answered, the calls after it run as usual — and completed. Returns whether
   * such an answer existed and whether the turn continues (no reject without a message).
   */
  const resume = (turn: { readonly sessionID: string; readonly turnID: string }, directory: string) =>
    Effect.gen(function* () {
      const asks = permissions.sync.pending(turn.sessionID)
      const messages = session.sync
        .incomplete(turn.sessionID, turn.turnID)
        .filter((m) => asks.some((a) => a.messageID === m.id))
      let more = true
      for (const message of messages) {
        const scope: CallScope = { sessionID: turn.sessionID, messageID: message.id, agentID: message.agent, directory }
        const open = message.parts.filter((p): p is ToolPart => p.type === "tool" && p.state === "running")
        const settled = new Set<string>()
        yield* Effect.gen(function* () {
          let stopped = false
          for (const call of open) {
            const outcome: CallOutcome = stopped
              ? { part: errorPart(call, SKIPPED_AFTER_REJECT), stop: true }
              : yield* run(
                  scope,
                  call,
                  asks.find((a) => a.partID === call.id),
                )
            yield* commit(turn.sessionID, [
              draft(SessionEvent.PartUpdated, { messageID: message.id, part: outcome.part }),
            ])
            settled.add(call.id)
            if (outcome.stop) stopped = true
          }
          if (stopped) more = false
          yield* commit(turn.sessionID, [
            draft(SessionEvent.AssistantCompleted, { messageID: message.id, finish: "tool-calls" }),
          ])
        }).pipe(
          Effect.onExit((exit) => {
            if (exit._tag === "Success") return Effect.void
            // Shut down while still waiting: leave the message open for the next start.
            if (Cause.hasInterruptsOnly(exit.cause) && waiting(turn.sessionID, message.id)) return Effect.void
            const reason = Cause.hasInterruptsOnly(exit.cause) ? "the turn was interrupted" : "the turn failed"
            return commit(turn.sessionID, [
              ...open
                .filter((call) => !settled.has(call.id))
                .map((call) =>
                  draft(SessionEvent.PartUpdated, { messageID: message.id, part: errorPart(call, reason) }),
                ),
              draft(SessionEvent.AssistantCompleted, {
                messageID: message.id,
                finish: "interrupted",
                error: { name: "Interrupted", message: reason },
              }),
            ]).pipe(Effect.ignore)
          }),
        )
      }
      return { resumed: messages.length > 0, more }
    })

  return { run, resume, waiting }
}
