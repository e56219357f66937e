import type { ContextEvent } from "@opencode-ai/plugin"
import { Cause, Clock, Context, Effect, Layer, Option, Stream } from "effect"
import { Bus } from "../../bus/bus.ts"
import { draft, type Draft } from "../../bus/event.ts"
import { Config } from "../../config/config.ts"
import { ascending } from "../../id/id.ts"
import { HookError, Hooks, hookTimeout, recordedHookError } from "../../hooks/hooks.ts"
import { makeToolHooks } from "../../hooks/tool-hooks.ts"
import { PluginTools } from "../../tool/plugin-tools.ts"
import type { ProviderEvent, Usage } from "../../provider/provider.ts"
import { Providers } from "../../provider/registry.ts"
import { withRetry } from "../../provider/retry.ts"
import { Permissions } from "../../permission/permission.ts"
import { Questions } from "../../question/question.ts"
import { Todos } from "../../todo/todo.ts"
import { childEnvironment } from "../../config/child-env.ts"
import { builtinTools, toModelTool, type ToolSource } from "../../tool/registry.ts"
import type { Tool } from "../../tool/tool.ts"
import { Mcp } from "../../mcp/mcp.ts"
import { Lsp } from "../../lsp/lsp.ts"
import { Formatters } from "../../format/format.ts"
import { makeSkillTool, skillToolFor } from "../../tool/skill.ts"
import { Skills } from "../../command/skills.ts"
import { selectAgent } from "../agent.ts"
import { steer, type TurnReason } from "../admission.ts"
import { SessionEvent } from "../../domain/event.ts"
import type { ErrorInfo, ToolItem } from "../../domain/message.ts"
import type { ModelMessage, ModelRef, ModelRequest, ModelTool, SystemPart } from "../../domain/model-request.ts"
import { rowModel, Session } from "../../session/session.ts"
import { retryStatus } from "../retry-status.ts"
import { shapeModelRequest } from "../model-request-hook.ts"
import { retryHook } from "../retry-hook.ts"
import { isOverflow, makeCompactor } from "../compaction.ts"
import { Turns } from "../../session/turns.ts"
import { makeInstructionReader } from "../instructions.ts"
import { fitDelta } from "../part-limit.ts"
import { runContextHooks } from "../provenance.ts"
import { systemParts } from "../system.ts"
import { toModelMessages } from "../transcript.ts"
import { Subagents } from "../subagent.ts"
import { Blobs } from "../../storage/blobs.ts"
import { makeSubtaskStep, pendingSubtask } from "./subtask.ts"
import { makeToolCaller, SKIPPED_AFTER_REJECT } from "./tool-call.ts"

export interface Turn {
  readonly sessionID: string
  readonly turnID: string
  readonly reason: TurnReason
}

export interface TurnOutcome {
  readonly outcome: "completed" | "failed"
  readonly error?: ErrorInfo
}

/**
 * Runs one turn: a loop of primary model requests. Each request runs the awaited `session.preflight`
 * hook, then selects agent, tools, system parts and transcript, hands copies to `session.context`, streams
 * the provider's answer into an assistant message (deltas live, completed parts durable), runs the tool
 * calls, and continues while the model asks for tools, up to the agent's step limit. Failures are recorded
 * on the assistant message and returned as the outcome; interruption records the partial message as
 * interrupted.
 */
export class Runner extends Context.Service<
  Runner,
  {
    run(turn: Turn): Effect.Effect<TurnOutcome>
    /** A compaction turn (`POST .../compact`): summarises the older transcript, no answer. */
    compact(turn: Turn): Effect.Effect<TurnOutcome>
    /** Ends a turn without a model request, recording `error` on an assistant message. */
    fail(turn: Turn, error: ErrorInfo): Effect.Effect<TurnOutcome>
  }
>()("@opencode-ai/core/session/runner/Runner") {
  static readonly layer = Layer.effect(
    Runner,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const hooks = yield* Hooks
      const providers = yield* Providers
      const config = yield* Config
      const turns = yield* Turns
      const permissions = yield* Permissions
      const blobs = yield* Blobs
      const skills = yield* Skills
      const subagents = yield* Subagents
      const questions = yield* Questions
      const todos = yield* Todos
      const lsp = Option.getOrUndefined(yield* Effect.serviceOption(Lsp))
      const formatters = Option.getOrUndefined(yield* Effect.serviceOption(Formatters))
      const builtin = [
        ...builtinTools({
          bash: config.data.tools?.bash !== false,
          ...(config.data.webfetch ? { webfetch: config.data.webfetch } : {}),
          todos,
          questions,
          ...(lsp || formatters
            ? {
                afterEdit: {
                  ...(lsp && config.data.lsp !== false ? { lsp } : {}),
                  ...(formatters && config.data.formatter !== false ? { formatters } : {}),
                  timeout: config.data.tools?.diagnostics?.timeout ?? 3_000,
                  warnings: config.data.tools?.diagnostics?.warnings ?? 10,
                },
              }
            : {}),
        }),
        subagents.tool,
      ]
      const skillTool = makeSkillTool(skills)
      const tools = [...builtin, skillTool]
      const modelTools: ReadonlyArray<ModelTool> = builtin.map(toModelTool)
      const skillModelTool = toModelTool(skillTool)
      // Tool sources (MCP servers) are listed per request: their tools come and go.
      // Plugin tools come before MCP servers'; no plugin may take a built-in tool's name.
      const pluginTools = Option.toArray(yield* Effect.serviceOption(PluginTools))
      for (const source of pluginTools) source.reserve(tools.map((tool) => tool.name))
      const sources: ReadonlyArray<ToolSource> = [...pluginTools, ...Option.toArray(yield* Effect.serviceOption(Mcp))]
      const sourcedModelTools = new WeakMap<Tool, ModelTool>()
      const listSourced = Effect.map(
        Effect.forEach(sources, (source) => source.tools()),
        (lists) =>
          // The first source to offer a name keeps it (a plugin tool over an MCP tool of the same id).
          lists
            .flat()
            .filter((tool, index, all) => all.findIndex((other) => other.name === tool.name) === index)
            .map((tool) => {
              let model = sourcedModelTools.get(tool)
              if (!model) sourcedModelTools.set(tool, (model = toModelTool(tool)))
              return model
            }),
      )
      const preflightTimeout = hookTimeout(config.data)
      const instructions = config.data.instructions ?? ["AGENTS.md"]
      const instructionReader = makeInstructionReader()
      const compactor = makeCompactor({
        bus,
        session,
        hooks,
        providers,
        config: config.data,
        turns,
        tools: modelTools,
        hookTimeout: preflightTimeout,
      })

      const commit = (sessionID: string, drafts: ReadonlyArray<Draft>) =>
        bus.commit(sessionID, drafts).pipe(Effect.orDie)
      // Tool calls go through the permission layer; children get the environment minus the host's secrets.
      const caller = makeToolCaller({
        tools,
        permissions,
        questions,
        session,
        env: childEnvironment(process.env, config.secrets ?? []),
        blobs,
        commit,
        stopping: subagents.stopping,
        toolHooks: makeToolHooks(hooks, preflightTimeout),
        find: (name) =>
          Effect.map(
            Effect.forEach(sources, (source) => source.find(name)),
            (found) => found.find((tool) => tool !== undefined),
          ),
      })

      const runSubtask = makeSubtaskStep({
        commit,
        run: (scope, call) => caller.run(scope, call),
        waiting: caller.waiting,
      })

      /** Runs `session.context` on copies, keeping system-part provenance host-assigned per plugin. */
      const shapeContext = (event: ContextEvent) => runContextHooks(hooks, event)

      /**
       * The agent, model and step limit of a turn, resolved once from one read: the latest prompt's
       * choices, else the session's, else config. Input admitted mid-turn waits for the turn boundary, so
       * the latest prompt cannot change while a turn runs; every step and the limit agree.
       */
      const resolve = (sessionID: string) => {
        const row = session.sync.row(sessionID)
        const latest = session.sync.latestPrompt(sessionID)
        const agent = selectAgent(config.data, latest?.agent ?? row?.agent ?? undefined)
        const model: ModelRef =
          latest?.model ?? agent.model ?? (row ? rowModel(row) : undefined) ?? providers.defaultModel
        return { agent, model, steps: agent.steps }
      }

      /** One primary model request and its tool calls. Returns whether the model asked to continue. */
      const step = (
        turn: Turn,
        reason: Exclude<TurnReason, "compact">,
        index: number,
        selection: ReturnType<typeof resolve>,
      ) =>
        Effect.gen(function* () {
          const row = session.sync.row(turn.sessionID)
          if (!row) return yield* Effect.interrupt
          const { agent, model } = selection
          yield* hooks.run(
            "preflight",
            Object.freeze({ sessionID: turn.sessionID, agentID: agent.id, reason, step: index }),
            { timeout: preflightTimeout },
          )

          // Context selection happens after preflight, so plugin state established there applies.
          const client = yield* providers.client(model)
          const instructionFiles = yield* instructionReader.read(row.directory, instructions)
          const system = systemParts(agent, instructionFiles)
          // The skill tool is offered only where skills exist, listing them (read per request: files change).
          const skillOffer = skillToolFor(skillModelTool, (yield* skills.list(row.directory)).skills)
          const offeredSkill: ReadonlyArray<ModelTool> = skillOffer ? [skillOffer] : []
          const sourced = yield* listSourced
          // Compacts first when this request would not fit the model's window.
          const transcript = yield* compactor.prepare({ sessionID: turn.sessionID, model, system })
          const built: ContextEvent = {
            sessionID: turn.sessionID,
            agentID: agent.id,
            model,
            system,
            messages: toModelMessages(transcript),
            tools: [...modelTools, ...offeredSkill, ...sourced],
          } as ContextEvent
          // Plugins get a deep copy so their edits can never reach storage or the cached tool list;
          // without context hooks there is nobody to protect from, and the copy is skipped.
          const context = hooks.list("context").length > 0 ? structuredClone(built) : built
          yield* shapeContext(context)
          const kind = { sessionID: turn.sessionID, agentID: agent.id, model, kind: "primary" } as const
          const request: ModelRequest = yield* shapeModelRequest(
            hooks,
            kind,
            {
              model,
              system: context.system as ReadonlyArray<SystemPart>,
              messages: (Array.isArray(context.messages) ? context.messages : []) as ReadonlyArray<ModelMessage>,
              tools: (Array.isArray(context.tools) ? context.tools : []) as ReadonlyArray<ModelTool>,
            },
            preflightTimeout,
          )

          const messageID = ascending("msg")
          yield* commit(turn.sessionID, [
            draft(SessionEvent.StepStarted, {
              assistantMessageID: messageID,
              turnID: turn.turnID,
              agent: agent.id,
              model,
            }),
          ])
          const state = new StreamState(messageID, yield* Effect.clockWith(Effect.succeed))
          const finished = yield* Effect.gen(function* () {
            // Transient failures before any output are retried with backoff (status `retrying` meanwhile).
            const retries = providers.retries(model.providerID)
            const retrying = {
              ...retryStatus(bus, turns, turn.sessionID),
              decide: retryHook(hooks, kind, preflightTimeout),
            }
            yield* withRetry(() => client.stream(request), retries, retrying).pipe(
              Stream.mapError(compactor.explain(turn.sessionID)),
              Stream.takeWhile(() => !state.capped),
              // Applying an event and committing what it produced is one step: an interrupt lands between
              // events, never between an item this state holds and its durable start, so the failure record
              // below (which ends the open item) always applies. Live deltas follow their item's start.
              Stream.runForEach((event) =>
                Effect.uninterruptible(
                  Effect.suspend(() => {
                    const deltas: Array<Delta> = []
                    const drafts = state.apply(event, (delta) => void deltas.push(delta))
                    return (drafts.length > 0 ? commit(turn.sessionID, drafts) : Effect.void).pipe(
                      Effect.andThen(
                        Effect.sync(() => {
                          for (const delta of deltas) publishDelta(turn.sessionID, delta)
                        }),
                      ),
                    )
                  }),
                ),
              ),
            )
            yield* commit(turn.sessionID, state.flush())
            let stopped = false
            for (const call of state.toolCalls()) {
              const scope = { sessionID: turn.sessionID, messageID, agentID: agent.id, directory: row.directory }
              const { stop } = yield* caller.run(scope, call)
              state.settle(call)
              if (stop) {
                // A reject without a message ends the turn; later calls of this answer never run.
                stopped = true
                yield* commit(turn.sessionID, state.abandon(SKIPPED_AFTER_REJECT))
                break
              }
            }
            yield* commit(turn.sessionID, [
              draft(SessionEvent.StepEnded, {
                assistantMessageID: messageID,
                finish: state.capped ? "length" : (state.finish ?? "stop"),
                cost: 0,
                tokens: state.tokens(),
              }),
            ])
            return state.toolCalls().length > 0 && !stopped
          }).pipe(
            // Whatever stopped the stream, the assistant message ends completed-or-marked, never dangling.
            Effect.onExit((exit) => {
              if (exit._tag === "Success") return Effect.void
              const interrupted = Cause.hasInterruptsOnly(exit.cause)
              // Stopped (shutdown) while a call waits for permission: the ask stays pending and the
              // message open, so the next start finishes it (see tool-call.ts `resume`).
              if (interrupted && caller.waiting(turn.sessionID, messageID)) return Effect.void
              const failure = Cause.squash(exit.cause) as { _tag?: string; message?: string }
              const error: ErrorInfo = interrupted
                ? { type: "unknown", name: "Interrupted", message: "the turn was interrupted" }
                : {
                    type: "unknown",
                    name: failure?._tag ?? "UnknownError",
                    message: failure?.message ?? String(failure),
                  }
              return commit(turn.sessionID, [
                ...state.flush(),
                ...state.abandon(error.message),
                draft(SessionEvent.StepFailed, {
                  assistantMessageID: messageID,
                  finish: interrupted ? "interrupted" : "error",
                  error,
                  ...(state.usage ? { tokens: state.tokens() } : {}),
                }),
              ]).pipe(Effect.ignore({ log: "Warn", message: "recording a failed step failed" }))
            }),
          )
          return finished
        }).pipe(Effect.withSpan("Runner.step", { attributes: { "step.index": index, "step.reason": reason } }))

      /** Streamed text and reasoning reach live subscribers only; the checkpoints and the end are durable. */
      const publishDelta = (sessionID: string, delta: Delta) =>
        delta.kind === "text"
          ? bus.publish(SessionEvent.TextDelta, sessionID, {
              assistantMessageID: delta.messageID,
              textID: delta.itemID,
              delta: delta.delta,
            })
          : bus.publish(SessionEvent.ReasoningDelta, sessionID, {
              assistantMessageID: delta.messageID,
              reasoningID: delta.itemID,
              delta: delta.delta,
            })

      /** Prompts sent with `delivery: "steer"` join before the turn's next request. */
      const deliverSteering = (sessionID: string) =>
        bus.transact<never>(sessionID, () => steer(session.sync, sessionID)).pipe(Effect.orDie)

      const run = Effect.fn("Runner.run")((turn: Turn) =>
        Effect.gen(function* () {
          // The turn's span (`Runner.run`) says which session and turn it is.
          yield* Effect.annotateCurrentSpan({
            "session.id": turn.sessionID,
            "turn.id": turn.turnID,
            "turn.reason": turn.reason,
          })
          const selection = resolve(turn.sessionID)
          if (turn.reason === "resume") {
            // An answer cut off while a call waited for permission is finished first.
            const directory = session.sync.row(turn.sessionID)?.directory ?? process.cwd()
            const pending = yield* caller.resume(turn, directory)
            if (pending.resumed && !pending.more) return { outcome: "completed" } as TurnOutcome
            // A subtask prompt's turn is its task call alone, also when a restart cut it off mid-child.
            if (pending.resumed && session.sync.latestPrompt(turn.sessionID)?.subtask)
              return { outcome: "completed" } as TurnOutcome
          }
          // A `subtask: true` command's prompt is run by its subagent, not answered by this model.
          const subtask = pendingSubtask(session.sync.transcript(turn.sessionID))
          if (subtask) {
            const directory = session.sync.row(turn.sessionID)?.directory ?? process.cwd()
            return yield* runSubtask(turn, subtask, { agentID: selection.agent.id, model: selection.model, directory })
          }
          for (let index = 1; index <= selection.steps; index++) {
            const reason = index === 1 && turn.reason !== "compact" ? turn.reason : "continue"
            if (index > 1) yield* deliverSteering(turn.sessionID)
            // A request the provider refused as too long is retried once after compacting.
            const more = yield* step(turn, reason, index, selection).pipe(
              Effect.catchIf(isOverflow, (error) =>
                compactor.recover(turn.sessionID, error).pipe(Effect.andThen(step(turn, reason, index, selection))),
              ),
            )
            if (!more) break
          }
          return { outcome: "completed" } as TurnOutcome
        }).pipe(
          Effect.catch((failure: { _tag: string; message: string }) => {
            const error: ErrorInfo =
              failure instanceof HookError
                ? recordedHookError(failure)
                : { type: "unknown", name: failure._tag, message: failure.message }
            // A failure before the assistant message existed (preflight, context hook, unknown model) is
            // recorded on a message of its own; a failure mid-stream was already recorded on its message.
            const last = session.sync.transcript(turn.sessionID).at(-1)
            return last?.type === "assistant" && last.turnID === turn.turnID && last.error
              ? Effect.succeed<TurnOutcome>({ outcome: "failed", error })
              : fail(turn, error)
          }),
          Effect.catchDefect((defect) =>
            Effect.succeed<TurnOutcome>({
              outcome: "failed",
              error: {
                type: "unknown",
                name: "UnknownError",
                message: defect instanceof Error ? defect.message : String(defect),
              },
            }),
          ),
        ),
      )

      const fail = Effect.fn("Runner.fail")((turn: Turn, error: ErrorInfo) =>
        Effect.gen(function* () {
          const messageID = ascending("msg")
          const { agent, model } = resolve(turn.sessionID)
          yield* commit(turn.sessionID, [
            draft(SessionEvent.StepStarted, {
              assistantMessageID: messageID,
              turnID: turn.turnID,
              agent: agent.id,
              model,
            }),
            draft(SessionEvent.StepFailed, { assistantMessageID: messageID, finish: "error", error }),
          ])
          return { outcome: "failed", error } as TurnOutcome
        }),
      )

      const compact = Effect.fn("Runner.compact")((turn: Turn) =>
        compactor.compact({ sessionID: turn.sessionID, reason: "manual" }).pipe(
          Effect.as<TurnOutcome>({ outcome: "completed" }),
          Effect.catch((failure) => fail(turn, { type: "unknown", name: failure._tag, message: failure.message })),
        ),
      )

      const implementation = Runner.of({ run, fail, compact })
      return implementation
    }),
  )
}

/** How often a streaming text/reasoning item is checkpointed into the projection. */
const CHECKPOINT_MS = 1_000

/** One streamed piece of text or reasoning, for live subscribers. */
interface Delta {
  readonly kind: "text" | "reasoning"
  readonly messageID: string
  readonly itemID: string
  readonly delta: string
}

/**
 * Accumulates one streamed answer. Text and reasoning items start durably (`text.started`), grow from
 * deltas (published live), are checkpointed with what was appended since the last checkpoint (at least
 * every second, so a crash loses at most that much), and end with their whole text. A tool call starts
 * as a pending item when it arrives (`tool.input.started` / `ended`); the caller runs it afterwards.
 */
class StreamState {
  finish: string | undefined
  usage: Usage | undefined
  /** An item reached `PART_MAX_CHARS`: the runner stops reading the answer, which finishes as `length`. */
  capped = false
  private open:
    { id: string; type: "text" | "reasoning"; text: string; checkpoint: number; committed: number } | undefined
  private readonly calls: Array<ToolItem> = []
  private readonly settled = new Set<string>()

  /** `clock` is Effect's, read synchronously while an event is applied (a test's `TestClock` moves it). */
  constructor(
    private readonly messageID: string,
    private readonly clock: Clock.Clock,
  ) {}

  apply(event: ProviderEvent, publish: (delta: Delta) => void): Array<Draft> {
    switch (event.type) {
      case "text-delta":
      case "reasoning-delta": {
        const type = event.type === "text-delta" ? "text" : "reasoning"
        const drafts = this.open && this.open.type !== type ? this.flush() : []
        if (!this.open) {
          const id = ascending("prt")
          this.open = { id, type, text: "", checkpoint: this.clock.currentTimeMillisUnsafe(), committed: 0 }
          drafts.push(
            type === "text"
              ? draft(SessionEvent.TextStarted, { assistantMessageID: this.messageID, textID: id })
              : draft(SessionEvent.ReasoningStarted, { assistantMessageID: this.messageID, reasoningID: id }),
          )
        }
        const open = this.open
        const kept = fitDelta(open.text.length, event.text)
        open.text += kept.text
        if (kept.text) publish({ kind: type, messageID: this.messageID, itemID: open.id, delta: kept.text })
        if (kept.full) this.capped = true
        // A crash must not lose what was streamed: what was appended since the last checkpoint is committed
        // at least every CHECKPOINT_MS, so a killed process leaves at most that much text behind.
        const now = this.clock.currentTimeMillisUnsafe()
        if (now - open.checkpoint >= CHECKPOINT_MS && open.text.length > open.committed) {
          open.checkpoint = now
          drafts.push(this.appended(open))
        }
        return drafts
      }
      case "tool-call": {
        const drafts = this.flush()
        const input = (
          typeof event.input === "object" && event.input !== null && !Array.isArray(event.input) ? event.input : {}
        ) as Record<string, unknown>
        const item: ToolItem = {
          type: "tool",
          id: ascending("prt"),
          callID: event.callID,
          name: event.tool,
          state: { status: "running", input, structured: {}, content: [] },
          time: { created: this.clock.currentTimeMillisUnsafe() },
        }
        this.calls.push(item)
        drafts.push(
          draft(SessionEvent.ToolInputStarted, {
            assistantMessageID: this.messageID,
            callID: item.callID,
            name: item.name,
            itemID: item.id,
          }),
          draft(SessionEvent.ToolInputEnded, {
            assistantMessageID: this.messageID,
            callID: item.callID,
            text: JSON.stringify(event.input ?? {}),
          }),
        )
        return drafts
      }
      case "finish":
        this.finish = event.reason
        if (event.usage) this.usage = event.usage
        return []
    }
  }

  private appended(open: NonNullable<StreamState["open"]>): Draft {
    const offset = open.committed
    open.committed = open.text.length
    const text = open.text.slice(offset)
    return open.type === "text"
      ? draft(SessionEvent.TextAppended, { assistantMessageID: this.messageID, textID: open.id, offset, text })
      : draft(SessionEvent.ReasoningAppended, {
          assistantMessageID: this.messageID,
          reasoningID: open.id,
          offset,
          text,
        })
  }

  /** Ends the open text/reasoning item, if any. */
  flush(): Array<Draft> {
    const open = this.open
    this.open = undefined
    if (!open) return []
    return [
      open.type === "text"
        ? draft(SessionEvent.TextEnded, { assistantMessageID: this.messageID, textID: open.id, text: open.text })
        : draft(SessionEvent.ReasoningEnded, {
            assistantMessageID: this.messageID,
            reasoningID: open.id,
            text: open.text,
          }),
    ]
  }

  /** The token counts of the answer, in upstream's shape (zeros where the provider reported none). */
  tokens() {
    return {
      input: this.usage?.input ?? 0,
      output: this.usage?.output ?? 0,
      reasoning: this.usage?.reasoning ?? 0,
      cache: { read: this.usage?.cacheRead ?? 0, write: this.usage?.cacheWrite ?? 0 },
    }
  }

  toolCalls(): ReadonlyArray<ToolItem> {
    return this.calls
  }

  settle(call: ToolItem) {
    this.settled.add(call.id)
  }

  /** Fails tool calls that never settled, so no item stays pending or running forever. */
  abandon(reason: string): Array<Draft> {
    return this.calls
      .filter((call) => !this.settled.has(call.id))
      .map((call) => {
        this.settled.add(call.id)
        return draft(SessionEvent.ToolFailed, {
          assistantMessageID: this.messageID,
          callID: call.callID,
          error: { type: "unknown", message: reason },
          provider: { executed: false },
        })
      })
  }
}
