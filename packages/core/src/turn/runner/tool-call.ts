import { ToolPermissionError } from "@opencode-ai/plugin"
import { Cause, Effect } from "effect"
import { draft, type Draft } from "../../bus/event.ts"
import { type Answer, Permissions, type PermissionRequest } from "../../permission/permission.ts"
import type { QuestionsShape } from "../../question/question.ts"
import { planTool } from "../../tool/registry.ts"
import type { BlobsShape } from "../../storage/blobs.ts"
import type { BeforeImages, Tool, ToolContext, ToolPlan } from "../../tool/tool.ts"
import { cappedOutput, outputNote, overCap, TOOL_OUTPUT_SCHEME, validToolOutputURI } from "../../tool/tool-output.ts"
import type { ToolHooks } from "../../hooks/tool-hooks.ts"
import { SessionEvent } from "../../domain/event.ts"
import { callInput, type ErrorInfo, type ToolItem } from "../../domain/message.ts"
import type { Session } from "../../session/session.ts"
import { askOfCall, type AskReads, awaitsAnswer, openCalls } from "../awaited-answer.ts"
import { runningTask } from "../subagent.ts"

/** Where a call runs: the session, its directory, the assistant message holding the item, the agent. */
export interface CallScope {
  readonly sessionID: string
  readonly messageID: string
  readonly agentID: string
  readonly directory: string
}

/** Whether the turn must stop after a call (a reject without a message). */
export interface CallOutcome {
  readonly stop: boolean
}

/** Set on calls after a rejected one in the same message: they never ran. */
export const SKIPPED_AFTER_REJECT = "not run: an earlier tool call in this answer was rejected"

const rejection = (answer: Answer) =>
  answer.message !== undefined && answer.message.trim() !== ""
    ? `the user rejected this call: ${answer.message}`
    : "the user rejected this call"

const errorInfo = (message: string, name?: string, pluginID?: string): ErrorInfo => ({
  type: "unknown",
  message,
  ...(name ? { name } : {}),
  ...(pluginID ? { pluginID } : {}),
})

/**
 * Runs tool calls behind the permission layer: plan (nothing touched yet; a call that cannot succeed fails
 * here without asking), decide (rules, session grants, plugin hook), ask durably and wait when the
 * decision is `ask`, then run. Each call commits `tool.called` when it runs and `tool.success` or
 * `tool.failed` when it settles. Also finishes, after a restart, an answer whose call waited for
 * permission: the stored call runs once, the model is not asked again.
 */
export const makeToolCaller = (deps: {
  readonly tools: ReadonlyArray<Tool>
  readonly permissions: Permissions["Service"]
  /** Pending questions hold their call's message open across a shutdown, as permission asks do. */
  readonly questions?: QuestionsShape
  readonly session: Session["Service"]
  readonly env: Readonly<Record<string, string | undefined>>
  /** The before-image store file-changing tools record into (see `FileRecord`). */
  readonly blobs?: BlobsShape
  readonly commit: (sessionID: string, drafts: ReadonlyArray<Draft>) => Effect.Effect<unknown>
  /** Whether the host is shutting down: a running `task` call then stays open for the next start. */
  readonly stopping?: () => boolean
  /** Resolves a name `tools` lacks from the tool sources (MCP servers). */
  readonly find?: (name: string) => Effect.Effect<Tool | undefined>
  /** `tool.execute.before` / `after`, around every call. */
  readonly toolHooks?: ToolHooks
}) => {
  const { permissions, session, commit } = deps
  const byName = new Map(deps.tools.map((tool) => [tool.name, tool]))
  const askReads: AskReads = {
    permissions: permissions.sync.ofMessage,
    questions: (sessionID, messageID) => deps.questions?.sync.ofMessage(sessionID, messageID) ?? [],
  }

  /**
   * A stored output, only for a session where a plugin or MCP call's capped output names its address (the
   * address in a call's input, or in a built-in tool's output such as an `echo`, does not count).
   */
  const ownedOutput = async (sessionID: string, uri: string): Promise<string | undefined> => {
    if (!deps.blobs || !validToolOutputURI(uri)) return undefined
    const named = session.sync
      .transcript(sessionID)
      .some(
        (message) =>
          message.type === "assistant" &&
          message.content.some(
            (item) =>
              item.type === "tool" &&
              !byName.has(item.name) &&
              item.state.status === "completed" &&
              item.state.content.some((part) => part.type === "text" && part.text.includes(outputNote(uri))),
          ),
      )
    return named ? deps.blobs.get(uri.slice(TOOL_OUTPUT_SCHEME.length)) : undefined
  }

  /**
   * One call. `pending` is the ask a previous process left for it (restart); `continued`, a call that was
   * already running when the previous process stopped (a `task` call whose child resumes): it is neither
   * decided nor announced again, only run to its end.
   */
  const run = (
    scope: CallScope,
    call: ToolItem,
    pending?: PermissionRequest,
    continued = false,
  ): Effect.Effect<CallOutcome> => {
    const controller = new AbortController()
    let input = pending?.input ?? callInput(call)
    const base = { assistantMessageID: scope.messageID, callID: call.callID }
    const failed = (
      message: string,
      extra: { structured?: Record<string, unknown>; title?: string; name?: string; pluginID?: string } = {},
    ) =>
      commit(scope.sessionID, [
        draft(SessionEvent.ToolFailed, {
          ...base,
          error: errorInfo(message, extra.name, extra.pluginID),
          provider: { executed: false },
          ...(extra.structured ? { structured: extra.structured } : {}),
          ...(extra.title !== undefined ? { title: extra.title } : {}),
        }),
      ])
    return Effect.gen(function* () {
      const tool = byName.get(call.name) ?? (deps.find ? yield* deps.find(call.name) : undefined)
      if (!tool) {
        yield* failed(`unknown tool "${call.name}"`)
        return { stop: false }
      }
      // Before-images stay pinned (a concurrent collection cannot take them) until the event naming them is committed.
      const put: Array<string> = []
      const blobs = deps.blobs
      const images: BeforeImages | undefined = blobs && {
        put: (content, known) =>
          blobs.put(content, known).then((ref) => {
            put.push(ref)
            return ref
          }),
        recall: blobs.recall,
        remember: blobs.remember,
        refAhead: blobs.refAhead,
      }
      yield* Effect.addFinalizer(() => Effect.sync(() => blobs?.release(put)))
      const ref = {
        sessionID: scope.sessionID,
        messageID: scope.messageID,
        itemID: call.id,
        callID: call.callID,
        agentID: scope.agentID,
        tool: call.name,
      }
      // A resumed call already went through the hook before its ask (or its run) was stored.
      if (deps.toolHooks && !pending && !continued) {
        const before = yield* Effect.result(deps.toolHooks.before(ref, input))
        if (before._tag === "Failure") {
          const { pluginID, hook, message } = before.failure
          yield* failed(`the ${hook} hook of plugin "${pluginID}" failed: ${message}; the call was not run`, {
            name: before.failure._tag,
            pluginID,
          })
          return { stop: false }
        }
        if (before.success._tag === "blocked") {
          const { pluginID, reason } = before.success
          yield* failed(`plugin "${pluginID}" blocked this call: ${reason}`, { name: "Plugin.ToolBlocked", pluginID })
          return { stop: false }
        }
        input = before.success.args as typeof input
      }
      /** Asks the person about this call (the plan says what for) and waits for the answer. */
      const askAndAwait = (plan: ToolPlan) =>
        Effect.flatMap(
          permissions.ask({
            sessionID: scope.sessionID,
            messageID: scope.messageID,
            itemID: call.id,
            callID: call.callID,
            tool: call.name,
            input,
            plan,
          }),
          permissions.answer,
        )
      const ask: ToolContext["ask"] = (request) =>
        Effect.gen(function* () {
          const refuse = (reason: "denied" | "rejected", message: string) =>
            new ToolPermissionError({
              tool: call.name,
              kind: request.permission,
              patterns: [...request.patterns],
              reason,
              message,
            })
          const plan: ToolPlan = { ...request, run: () => Effect.die("a permission-only plan is never run") }
          const decided = yield* permissions
            .decide({ sessionID: scope.sessionID, agentID: scope.agentID, tool: call.name, input, plan })
            .pipe(
              Effect.mapError((e) =>
                refuse("denied", `the permission hook of plugin "${e.pluginID}" failed: ${e.message}`),
              ),
            )
          if (decided === "allow") return
          if (decided === "deny")
            return yield* refuse(
              "denied",
              `permission denied: "${request.title}" is not allowed by the ${request.permission} permission rules`,
            )
          const answer = yield* askAndAwait(plan)
          if (answer.reply === "reject") return yield* refuse("rejected", rejection(answer))
        })
      const ctx = {
        ask,
        sessionID: scope.sessionID,
        directory: scope.directory,
        signal: controller.signal,
        env: deps.env,
        itemID: call.id,
        messageID: scope.messageID,
        callID: call.callID,
        agentID: scope.agentID,
        ...(images ? { images } : {}),
        ...(blobs ? { toolOutput: (uri: string) => ownedOutput(scope.sessionID, uri) } : {}),
      }
      const planned = yield* Effect.result(planTool(tool, input, ctx))
      if (planned._tag === "Failure") {
        // A pending ask whose call can no longer be planned still needs its answer consumed first.
        if (pending) yield* permissions.answer(pending.id)
        yield* failed(planned.failure.message)
        return { stop: false }
      }
      const plan: ToolPlan = planned.success
      const structured = plan.metadata ? { ...plan.metadata } : {}
      let answer: Answer | undefined
      if (pending) {
        answer = yield* permissions.answer(pending.id)
      } else if (!continued) {
        const decided = yield* Effect.result(
          permissions.decide({ sessionID: scope.sessionID, agentID: scope.agentID, tool: call.name, input, plan }),
        )
        if (decided._tag === "Failure") {
          const failure = decided.failure
          yield* failed(
            `the permission hook of plugin "${failure.pluginID}" failed: ${failure.message}; the call was not run`,
            { title: plan.title },
          )
          return { stop: false }
        }
        if (decided.success === "deny") {
          yield* failed(
            `permission denied: "${plan.title}" is not allowed by the ${plan.permission} permission rules`,
            {
              title: plan.title,
            },
          )
          return { stop: false }
        }
        if (decided.success === "ask") {
          answer = yield* askAndAwait(plan)
        }
      }
      if (answer?.reply === "reject") {
        yield* failed(rejection(answer), { structured, title: plan.title })
        return { stop: answer.message === undefined || answer.message.trim() === "" }
      }
      if (pending && JSON.stringify(pending.metadata?.["diff"]) !== JSON.stringify(plan.metadata?.["diff"])) {
        yield* failed(
          "the files changed after permission was asked; nothing was changed, read them again and redo the call",
          { title: plan.title },
        )
        return { stop: false }
      }
      if (!continued)
        yield* commit(scope.sessionID, [
          draft(SessionEvent.ToolCalled, {
            ...base,
            tool: call.name,
            input,
            provider: { executed: false },
            itemID: call.id,
            title: plan.title,
          }),
        ])
      const result = yield* Effect.result(plan.run())
      if (result._tag === "Failure") {
        // Tool errors other than the generic one keep their tag (`Tool.ForbiddenAddressError`).
        const name = result.failure._tag === "Tool.Error" ? undefined : result.failure._tag
        const pluginID = result.failure._tag === "Tool.Error" ? result.failure.pluginID : undefined
        yield* failed(result.failure.message, {
          structured,
          title: plan.title,
          ...(name ? { name } : {}),
          ...(pluginID ? { pluginID } : {}),
        })
        return { stop: false }
      }
      const metadata = result.success.metadata
      let stored = {
        output: result.success.output,
        title: result.success.title ?? plan.title,
        metadata: metadata ? { ...metadata } : structured,
      }
      if (deps.toolHooks) {
        const after = yield* Effect.result(deps.toolHooks.after(ref, input, stored))
        if (after._tag === "Failure") {
          // Fail closed: the hook may exist to redact the output, so an unhooked output is never stored.
          const { pluginID, hook, message } = after.failure
          yield* failed(
            `the ${hook} hook of plugin "${pluginID}" failed: ${message}; the call ran, its output was withheld`,
            {
              structured,
              title: stored.title,
              name: after.failure._tag,
              pluginID,
            },
          )
          return { stop: false }
        }
        stored = after.success
      }
      // Plugin and MCP output is capped like bash's (after the hook, which may redact the whole of it);
      // the whole output stays readable through the read tool. Built-in tools bound their own output.
      if (!byName.has(call.name) && overCap(stored.output)) {
        const full = stored.output
        const outputRef = images ? yield* Effect.promise(() => images.put(full)) : undefined
        stored = { ...stored, output: cappedOutput(full, outputRef) }
      }
      yield* commit(scope.sessionID, [
        draft(SessionEvent.ToolSuccess, {
          ...base,
          structured: stored.metadata,
          content: [{ type: "text", text: stored.output }],
          provider: { executed: false },
          title: stored.title,
        }),
      ])
      return { stop: false }
    }).pipe(
      Effect.catchDefect((defect) =>
        failed(
          `tool "${call.name}" failed unexpectedly: ${defect instanceof Error ? defect.message : String(defect)}`,
        ).pipe(Effect.as<CallOutcome>({ stop: false })),
      ),
      Effect.onInterrupt(() => Effect.sync(() => controller.abort())),
      Effect.scoped,
      // One span per call, under the turn's step: the decision, the ask and the tool's own work.
      Effect.withSpan("Tool.call", { attributes: { "tool.name": call.name, "tool.call_id": call.callID } }),
    )
  }

  /**
   * Whether an assistant message must stay open across a shutdown: an ask or a question of it still waits,
   * or (while the host stops) a `task` call of it runs, whose child resumes with it on the next start.
   */
  const waiting = (sessionID: string, messageID: string) => {
    if (permissions.sync.pending(sessionID).some((ask) => ask.source.messageID === messageID)) return true
    if (deps.questions?.sync.pending(sessionID).some((q) => q.tool?.messageID === messageID)) return true
    if (!deps.stopping?.()) return false
    const message = session.sync.message(sessionID, messageID)
    return message?.type === "assistant" && runningTask(message)
  }

  /**
   * After a restart: an answer of `turnID` cut off while a call waited for permission, or while a `task`
   * call ran its child, is finished — the waiting call runs once answered, the task call waits for its
   * resumed child, the calls after it run as usual — and completed. Returns whether
   * such an answer existed and whether the turn continues (no reject without a message).
   */
  const resume = (turn: { readonly sessionID: string; readonly turnID: string }, directory: string) =>
    Effect.gen(function* () {
      // Read when the resumed turn runs, not when it was granted: an ask answered in between is finished too.
      const messages = session.sync
        .incomplete(turn.sessionID, turn.turnID)
        .filter((m) => awaitsAnswer(turn.sessionID, m, askReads))
      let more = true
      for (const message of messages) {
        const scope: CallScope = { sessionID: turn.sessionID, messageID: message.id, agentID: message.agent, directory }
        const open = openCalls(message)
        const asks = permissions.sync.ofMessage(turn.sessionID, message.id)
        const settled = new Set<string>()
        yield* Effect.gen(function* () {
          let stopped = false
          for (const call of open) {
            if (stopped) {
              yield* commit(turn.sessionID, [
                draft(SessionEvent.ToolFailed, {
                  assistantMessageID: message.id,
                  callID: call.callID,
                  error: errorInfo(SKIPPED_AFTER_REJECT),
                  provider: { executed: false },
                }),
              ])
            } else {
              const ask = askOfCall(asks, call)
              const continued = !ask && call.name === "task" && call.state.status === "running"
              const outcome = yield* run(scope, call, ask, continued)
              if (outcome.stop) stopped = true
            }
            settled.add(call.id)
          }
          if (stopped) more = false
          yield* commit(turn.sessionID, [
            draft(SessionEvent.StepEnded, {
              assistantMessageID: message.id,
              finish: "tool-calls",
              cost: message.cost ?? 0,
              tokens: message.tokens ?? { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
            }),
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
                  draft(SessionEvent.ToolFailed, {
                    assistantMessageID: message.id,
                    callID: call.callID,
                    error: errorInfo(reason),
                    provider: { executed: false },
                  }),
                ),
              draft(SessionEvent.StepFailed, {
                assistantMessageID: message.id,
                finish: "interrupted",
                error: errorInfo(reason, "Interrupted"),
              }),
            ]).pipe(Effect.ignore({ log: "Warn", message: "recording an interrupted tool call failed" }))
          }),
        )
      }
      return { resumed: messages.length > 0, more }
    })

  return { run, resume, waiting }
}
