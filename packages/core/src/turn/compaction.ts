import type { CompactionEvent } from "@opencode-ai/plugin"
import { Effect, Stream } from "effect"
import type { Bus, Decision } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import type { ConfigData } from "../config/config.ts"
import { ascending } from "../id/id.ts"
import type { Hooks, HookError } from "../hooks/hooks.ts"
import type { ModelLimit } from "../config/provider.ts"
import { ProviderError, type ProviderClient, type Usage } from "../provider/provider.ts"
import type { ProvidersShape } from "../provider/registry.ts"
import { withRetry } from "../provider/retry.ts"
import type { Grant } from "./admission.ts"
import { selectAgent } from "./agent.ts"
import { BusyError, SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import type { CompactionMessage, Message } from "../domain/message.ts"
import type { ModelMessage, ModelRef, ModelTool, SystemPart } from "../domain/model-request.ts"
import { retryStatus } from "./retry-status.ts"
import { shapeModelRequest } from "./model-request-hook.ts"
import { retryHook } from "./retry-hook.ts"
import { rowModel, type SessionShape } from "../session/session.ts"
import { modelView, toModelMessages } from "./transcript.ts"
import type { Turns } from "../session/turns.ts"

/**
 * Compaction keeps a long session within its model's context window by summarising the older transcript
 * (as the model sees it) into a `compaction` message (docs/providers.md).
 */

/** Tokens of a text, estimated (about four characters per token): cheap, deterministic, provider-neutral. */
export const estimateTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4)

/** Estimated input tokens of a request. */
export const estimateRequest = (
  system: ReadonlyArray<SystemPart>,
  messages: ReadonlyArray<ModelMessage>,
  tools: ReadonlyArray<ModelTool>,
): number => estimateTokens({ system: system.map((part) => part.text), messages, tools })

/** Whether a request of `estimate` tokens leaves the answer too little room in the window. */
export const overLimit = (estimate: number, limit: ModelLimit | undefined): boolean =>
  limit !== undefined && estimate > limit.context - limit.output

/** The model a session's next request uses: the latest prompt's, else its agent's, the session's, the default. */
export const sessionModel = (
  reads: SessionShape["sync"],
  config: ConfigData,
  providers: ProvidersShape,
  sessionID: string,
): ModelRef => {
  const row = reads.row(sessionID)
  const latest = reads.latestPrompt(sessionID)
  const agent = selectAgent(config, latest?.agent ?? row?.agent ?? undefined)
  return latest?.model ?? agent.model ?? (row ? rowModel(row) : undefined) ?? providers.defaultModel
}

/** What a compaction would cover: the messages summarised, the last seq covered, the prompt restated. */
export interface CompactionPlan {
  readonly covered: ReadonlyArray<Message>
  readonly through: number
  readonly prompt?: string
}

/**
 * Chooses the cut. Normally everything before the latest input (prompt or notice) is summarised and the
 * input and what follows stay verbatim. When nothing new precedes it (one long turn filled the window),
 * the turn's own work is summarised too, and the input is restated after the summary. Nothing to
 * summarise: undefined.
 */
export const planCompaction = (transcript: ReadonlyArray<Message>): CompactionPlan | undefined => {
  const view = modelView(transcript)
  const previous = view[0]?.type === "compaction" ? view[0] : undefined
  let at = -1
  for (let i = view.length - 1; i >= 0; i--) {
    const message = view[i]!
    if ((message.type === "user" || message.type === "synthetic") && !message.retracted) {
      at = i
      break
    }
  }
  const through = (messages: ReadonlyArray<Message>) =>
    Math.max(previous?.through ?? 0, ...messages.filter((m) => m.type !== "compaction").map((m) => m.seq))
  const fresh = (messages: ReadonlyArray<Message>) =>
    messages.some((m) => m.type !== "compaction" && m.id !== previous?.promptID)
  if (at > 0 && fresh(view.slice(0, at))) {
    const covered = view.slice(0, at)
    return { covered, through: through(covered) }
  }
  if (at >= 0 && at < view.length - 1) {
    return { covered: view, through: through(view), prompt: view[at]!.id }
  }
  if (at < 0 && fresh(view)) return { covered: view, through: through(view) }
  return undefined
}

/** The instruction of the summary request (the system part of that one request). */
export const COMPACTION_PROMPT = [
  "You are summarising a coding-agent session so that the work can continue in a fresh context.",
  "Write a concise but complete summary: the user's goals and requests, decisions made, files read or changed",
  "(with paths), commands run and their outcomes, the current state of the work and what remains to be done.",
  "Keep exact names, paths, identifiers and error messages. Output only the summary.",
].join("\n")

/** The last message of the summary request: the ask, plus what plugins added through `compaction`. */
export const summaryAsk = (context: ReadonlyArray<string>): string =>
  [
    "Summarise the conversation above, following your instructions.",
    ...(context.length > 0 ? ["", "The summary must also keep:", ...context.map((line) => `- ${line}`)] : []),
  ].join("\n")

export interface CompactorDeps {
  readonly bus: Bus["Service"]
  readonly session: SessionShape
  readonly hooks: Hooks["Service"]
  readonly providers: ProvidersShape
  readonly config: ConfigData
  readonly turns: Turns["Service"]
  /** The tools the session's requests declare (some protocols need them when the transcript holds calls). */
  readonly tools: ReadonlyArray<ModelTool>
  /** Bound on the `compaction` hook's callbacks, in ms. */
  readonly hookTimeout: number
}

export interface CompactRequest {
  readonly sessionID: string
  readonly reason: CompactionMessage["reason"]
  /** The provider refused a request as too long (an automatic compaction after the fact). */
  readonly overflow?: boolean
}

export type CompactionError = ProviderError | HookError

export const makeCompactor = (deps: CompactorDeps) => {
  const { bus, session, hooks, providers } = deps
  const automatic = deps.config.compaction?.auto !== false
  // The agent a session's requests run under, named to the request hooks.
  const compactionAgent = (sessionID: string) =>
    selectAgent(
      deps.config,
      session.sync.latestPrompt(sessionID)?.agent ?? session.sync.row(sessionID)?.agent ?? undefined,
    ).id

  /** Summarises and commits; false when there was nothing to summarise. */
  const compact = (request: CompactRequest): Effect.Effect<boolean, CompactionError> =>
    Effect.gen(function* () {
      const { sessionID } = request
      const plan = planCompaction(session.sync.transcript(sessionID))
      if (!plan) return false
      const model = sessionModel(session.sync, deps.config, providers, sessionID)
      const client: ProviderClient = yield* providers.client(model)
      const messageID = ascending("msg")
      yield* bus
        .commit(sessionID, [draft(SessionEvent.CompactionStarted, { messageID, reason: request.reason })])
        .pipe(Effect.orDie)
      const event: CompactionEvent = { sessionID, context: [] }
      yield* hooks.run("compaction", event, { timeout: deps.hookTimeout })
      const context = (Array.isArray(event.context) ? event.context : []).filter(
        (line): line is string => typeof line === "string" && line.trim().length > 0,
      )
      const messages: Array<ModelMessage> = [
        ...toModelMessages(plan.covered),
        { role: "user", content: [{ type: "text", text: summaryAsk(context) }] },
      ]
      let summary = ""
      let usage: Usage | undefined
      const scope = { sessionID, agentID: compactionAgent(sessionID), model, kind: "compaction" } as const
      const shaped = yield* shapeModelRequest(
        hooks,
        scope,
        {
          model,
          system: [
            {
              type: "text",
              id: "host:compaction",
              text: COMPACTION_PROMPT,
              origin: { type: "host", name: "default" },
            },
          ],
          messages,
          tools: deps.tools,
        },
        deps.hookTimeout,
      )
      yield* withRetry(() => client.stream(shaped), providers.retries(model.providerID), {
        ...retryStatus(bus, deps.turns, sessionID),
        decide: retryHook(hooks, scope, deps.hookTimeout),
      }).pipe(
        Stream.runForEach((part) =>
          Effect.sync(() => {
            if (part.type === "text-delta") {
              summary += part.text
              bus.publish(SessionEvent.CompactionDelta, sessionID, { messageID, text: part.text })
            } else if (part.type === "finish" && part.usage) usage = part.usage
          }),
        ),
      )
      summary = summary.trim()
      if (!summary) {
        return yield* new ProviderError({
          providerID: model.providerID,
          message: "compaction failed: the model returned an empty summary",
        })
      }
      const restated = plan.prompt ? session.sync.message(sessionID, plan.prompt) : undefined
      yield* bus
        .commit(sessionID, [
          draft(SessionEvent.CompactionEnded, {
            messageID,
            reason: request.reason,
            text: summary,
            recent: restated?.type === "user" || restated?.type === "synthetic" ? restated.text : "",
            ...(plan.prompt ? { promptID: plan.prompt } : {}),
            through: plan.through,
            ...(request.overflow ? { overflow: true as const } : {}),
            model,
            ...(usage
              ? {
                  tokens: {
                    input: usage.input,
                    output: usage.output,
                    reasoning: usage.reasoning ?? 0,
                    cache: { read: usage.cacheRead ?? 0, write: usage.cacheWrite ?? 0 },
                  },
                }
              : {}),
          }),
        ])
        .pipe(Effect.orDie)
      return true
    })

  /**
   * The transcript the next request is built from, compacting first when the request would not fit the
   * model's window (at most once: a transcript still too long after it goes as it is, and an overflow
   * error then decides).
   */
  const prepare = (input: {
    readonly sessionID: string
    readonly model: ModelRef
    readonly system: ReadonlyArray<SystemPart>
  }): Effect.Effect<ReadonlyArray<Message>, CompactionError> =>
    Effect.gen(function* () {
      const transcript = session.sync.transcript(input.sessionID)
      const limit = providers.limit(input.model)
      if (!limit || !automatic) return transcript
      if (!overLimit(estimateRequest(input.system, toModelMessages(transcript), deps.tools), limit)) return transcript
      const compacted = yield* compact({ sessionID: input.sessionID, reason: "auto" })
      return compacted ? session.sync.transcript(input.sessionID) : transcript
    })

  /** After the provider refused a request as too long: compacts, or fails with that error when it cannot. */
  const recover = (sessionID: string, error: ProviderError): Effect.Effect<void, CompactionError> =>
    automatic
      ? compact({ sessionID, reason: "auto", overflow: true }).pipe(
          Effect.flatMap((compacted) => (compacted ? Effect.void : Effect.fail(error))),
        )
      : Effect.fail(error)

  /**
   * A request's failure as it is recorded: with automatic compaction off, a refusal as too long says how to
   * compact (nothing else will).
   */
  const explain =
    (sessionID: string) =>
    (error: ProviderError): ProviderError =>
      automatic || !isOverflow(error)
        ? error
        : new ProviderError({
            ...error,
            message:
              `${error.message}; the conversation no longer fits the model's context window and automatic ` +
              "compaction is off (`compaction.auto: false`): compact the session " +
              `(\`POST /api/session/${sessionID}/compact\`, or \`session.compact\` in the SDK), then continue`,
          })

  return { compact, prepare, recover, explain }
}

export type Compactor = ReturnType<typeof makeCompactor>

/** Whether a failure is the provider refusing a request as too long for the context window. */
export const isOverflow = (error: unknown): error is ProviderError =>
  error instanceof ProviderError && error.overflow === true

/**
 * The session's token figures: `context`, what the next request carries (the latest answer's reported
 * usage, input plus output, when nothing but answers follow it and it is newer than the latest compaction;
 * else an estimate of the messages that would be sent), and `limit`, the model's context window when known.
 */
export const contextTokens = (
  reads: SessionShape["sync"],
  config: ConfigData,
  providers: ProvidersShape,
  sessionID: string,
): { readonly context: number; readonly limit?: number } => {
  const transcript = reads.transcript(sessionID)
  const view = modelView(transcript)
  // A usage reported before the latest compaction measured a request that no longer goes out.
  const since = view[0]?.type === "compaction" ? view[0].seq : 0
  let context: number | undefined
  for (let i = view.length - 1; i >= 0; i--) {
    const message = view[i]!
    if (message.seq < since) break
    if (message.type === "assistant" && message.tokens && message.tokens.input + message.tokens.output > 0) {
      context = message.tokens.input + message.tokens.output
      break
    }
    if (message.type !== "assistant") break
  }
  if (context === undefined) {
    const messages = toModelMessages(transcript)
    context = messages.length > 0 ? estimateTokens(messages) : 0
  }
  const limit = providers.limit(sessionModel(reads, config, providers, sessionID))?.context
  return { context, ...(limit !== undefined ? { limit } : {}) }
}

/**
 * Admits a compaction turn (`POST .../compact`): like a prompt's turn it takes the execution claim, so
 * mutations answer 409 meanwhile; a session whose claim is held is busy.
 */
export const admitCompaction = (
  reads: SessionShape["sync"],
  sessionID: string,
): { decision: Decision<SessionNotFoundError | BusyError>; grant?: Grant } => {
  if (!reads.row(sessionID)) return { decision: { reject: new SessionNotFoundError({ sessionID }) } }
  if (reads.claimed(sessionID)) return { decision: { reject: new BusyError({ sessionID }) } }
  const grant = { turnID: ascending("trn"), reason: "compact" as const }
  return { decision: [draft(SessionEvent.TurnStarted, grant)], grant }
}
