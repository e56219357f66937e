import type { PromptInput } from "@opencode-ai/schema"
import { Context, Deferred, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { Config } from "../config/config.ts"
import { ascending } from "../id/id.ts"
import { makeTaskTool, type TaskInput } from "../tool/task.ts"
import { type Tool, type ToolContext, ToolError, type ToolResult } from "../tool/tool.ts"
import { agentExists, agentIDs, runsAs, selectAgent } from "./agent.ts"
import { SessionEvent } from "../domain/event.ts"
import type {
  BusyError,
  InvalidInputError,
  QueueFullError,
  SessionNotFoundError,
  TooLargeError,
} from "../domain/error.ts"
import type { AssistantMessage, Message } from "../domain/message.ts"
import { RESTART_NOTICE } from "./restart-notice.ts"
import { rowModel, Session } from "../session/session.ts"

/**
 * What running a child needs of `Execution`. `Execution` is built on the runner that offers the `task`
 * tool, so it cannot be a dependency of it: it binds itself here once it exists, and a call waits for that.
 * Declared here rather than picked from `ExecutionShape` so the subagent knows nothing of the execution
 * that drives it (see docs/architecture.md, "Child turns").
 */
export interface ChildExecution {
  prompt(input: {
    readonly sessionID: string
    readonly id: string
    readonly prompt: PromptInput
  }): Effect.Effect<unknown, SessionNotFoundError | InvalidInputError | QueueFullError | TooLargeError>
  resume(
    sessionID: string,
    options?: { readonly notice?: string },
  ): Effect.Effect<unknown, SessionNotFoundError | BusyError>
  wait(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  interrupt(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  /** Whether this process is running a turn of the session. */
  running(sessionID: string): boolean
  /** Whether the host is shutting down: a parent stopped then leaves its child to resume on the next start. */
  stopping(): boolean
}

/** The child session a `task` call runs: derived from the call's tool item, so a resumed call finds it again. */
export const childSessionID = (itemID: string): string => `ses_${itemID.slice(itemID.indexOf("_") + 1)}`
/** The prompt a `task` call gives its child, under a derived id: admitting it twice stores it once. */
const childPromptID = (itemID: string): string => `msg_${itemID.slice(itemID.indexOf("_") + 1)}`

/**
 * How deep children may nest: a session with this many ancestors cannot start another. A subagent may
 * delegate in turn, but a model looping on `task` must not create sessions without end.
 */
export const MAX_TASK_DEPTH = 3

/** Whether an assistant message has a `task` call still running (its child outlives a stop or a crash). */
export const runningTask = (message: Pick<AssistantMessage, "content">): boolean =>
  message.content.some((item) => item.type === "tool" && item.name === "task" && item.state.status === "running")

/** The text of a child's answer to the task: its last assistant message after the task's prompt. */
const finalAnswer = (transcript: ReadonlyArray<Message>, promptID: string) => {
  const start = transcript.findIndex((message) => message.id === promptID)
  const answers = transcript
    .slice(start + 1)
    .filter((message): message is AssistantMessage => message.type === "assistant")
  const last = answers.at(-1)
  if (!last) return { error: "the subagent gave no answer" }
  if (last.error) return { error: last.error.message }
  const text = last.content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("")
  return { text }
}

/**
 * Subagents: the `task` tool and what it runs. A call creates a child session (`parentID` the caller, the
 * same directory, the chosen subagent as its agent), prompts it and waits for its turns to end; the
 * child's final text is the call's output and its id the call's `sessionID` metadata. The child is an
 * ordinary session: its preflight, context, permissions and mutations follow the same rules as any.
 * Interrupting the caller interrupts the child; on shutdown both keep their claims and resume together.
 */
export class Subagents extends Context.Service<
  Subagents,
  {
    /** Called once by `Execution` when it is built. */
    bind(execution: ChildExecution): void
    /** The `task` tool, listing the subagents of the config. */
    readonly tool: Tool<TaskInput>
    /** Whether the host is shutting down (false until `Execution` is bound). */
    stopping(): boolean
  }
>()("@opencode-ai/core/session/Subagents") {
  static readonly layer = Layer.effect(
    Subagents,
    Effect.gen(function* () {
      const session = yield* Session
      const bus = yield* Bus
      const config = yield* Config
      const bound = Deferred.makeUnsafe<ChildExecution>()
      let execution: ChildExecution | undefined

      const subagents = agentIDs(config.data)
        .map((id) => selectAgent(config.data, id))
        .filter((agent) => runsAs(agent, "subagent"))

      /** The chosen subagent must exist and be allowed to run as one; the refusal names it and the choices. */
      const check = (input: TaskInput) => {
        const id = input.subagent_type
        if (agentExists(config.data, id) && runsAs(selectAgent(config.data, id), "subagent")) return Effect.void
        const problem = agentExists(config.data, id)
          ? `agent "${id}" is a primary agent and cannot run as a subagent`
          : `unknown subagent "${id}"`
        const available = subagents.map((agent) => agent.id).join(", ") || "none"
        return Effect.fail(new ToolError({ tool: "task", message: `${problem}; available subagents: ${available}` }))
      }

      /** Runs the child's turns to their end (resuming one a restart left suspended), then reads its answer. */
      const settle = (exec: ChildExecution, childID: string) =>
        Effect.gen(function* () {
          for (;;) {
            // Stopping: the child's turn ends cut off, not finished; the call waits for the next start.
            if (exec.stopping()) return yield* Effect.interrupt
            if (!session.sync.claimed(childID)) return
            // A child a restart left suspended, reached before the start-up pass resumed it: the same resume.
            if (!exec.running(childID))
              yield* Effect.ignore(exec.resume(childID, { notice: RESTART_NOTICE }), {
                log: "Warn",
                message: `subagent ${childID}: resume failed`,
              })
            yield* Effect.ignore(exec.wait(childID), { log: "Warn", message: `subagent ${childID}: wait failed` })
          }
        })

      const run = (input: TaskInput, ctx: ToolContext): Effect.Effect<ToolResult, ToolError> =>
        Effect.gen(function* () {
          yield* check(input)
          const exec = yield* Deferred.await(bound)
          const itemID = ctx.itemID ?? ascending("prt")
          const childID = childSessionID(itemID)
          const promptID = childPromptID(itemID)
          const parent = session.sync.row(ctx.sessionID)
          if (!session.sync.row(childID)) {
            let depth = 0
            for (let up = parent?.parent_id; up && depth <= MAX_TASK_DEPTH; up = session.sync.row(up)?.parent_id)
              depth++
            if (depth >= MAX_TASK_DEPTH)
              return yield* new ToolError({
                tool: "task",
                message: `subagents nest at most ${MAX_TASK_DEPTH} deep: this session is already a subagent ${depth} levels down; do the work here`,
              })
            // The child is named on the call first, so a client sees it while it runs.
            if (ctx.messageID && ctx.callID)
              yield* bus
                .commit(ctx.sessionID, [
                  draft(SessionEvent.ToolProgress, {
                    assistantMessageID: ctx.messageID,
                    callID: ctx.callID,
                    structured: { sessionID: childID },
                    content: [],
                  }),
                ])
                .pipe(Effect.orDie)
            const model = session.sync.latestPrompt(ctx.sessionID)?.model ?? (parent ? rowModel(parent) : undefined)
            yield* session
              .create({
                id: childID,
                title: `${input.description} (@${input.subagent_type} subagent)`,
                directory: ctx.directory,
                parentID: ctx.sessionID,
                agent: input.subagent_type,
                ...(model ? { model } : {}),
              })
              .pipe(
                Effect.mapError(
                  (error) => new ToolError({ tool: "task", message: `could not start the subagent: ${error.message}` }),
                ),
              )
          }
          yield* exec
            .prompt({ sessionID: childID, id: promptID, prompt: { text: input.prompt } })
            .pipe(
              Effect.mapError(
                (error) => new ToolError({ tool: "task", message: `could not prompt the subagent: ${error.message}` }),
              ),
            )
          yield* settle(exec, childID).pipe(
            // The caller interrupted (not the host stopping): the child stops with it.
            Effect.onInterrupt(() =>
              exec.stopping()
                ? Effect.void
                : Effect.ignore(exec.interrupt(childID), {
                    log: "Warn",
                    message: `subagent ${childID}: interrupt failed`,
                  }),
            ),
          )
          const answer = finalAnswer(session.sync.transcript(childID), promptID)
          if (answer.error !== undefined)
            return yield* new ToolError({ tool: "task", message: `the subagent failed: ${answer.error}` })
          return { output: answer.text ?? "", metadata: { sessionID: childID } }
        })

      return Subagents.of({
        bind: (exec) => {
          execution = exec
          Deferred.doneUnsafe(bound, Effect.succeed(exec))
        },
        tool: makeTaskTool({ subagents, check, run }),
        stopping: () => execution?.stopping() ?? false,
      })
    }),
  )
}
