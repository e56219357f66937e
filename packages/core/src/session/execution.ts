import type { PromptEvent, SyntheticEvent } from "@opencode-ai/plugin"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { Bus, type Decision } from "../bus/bus.ts"
import type { Draft } from "../bus/event.ts"
import { Config } from "../config/config.ts"
import { ascending } from "../id/id.ts"
import { Hooks } from "../plugin/hooks.ts"
import { Providers } from "../provider/registry.ts"
import { admitInput, admitResume, boundary, type Grant, settleCutOff } from "./admission.ts"
import { checkChoice } from "./choice.ts"
import { admitCompaction } from "./compaction.ts"
import { type BusyError, InvalidInputError, SessionNotFoundError } from "./error.ts"
import type { InputMessage, MessageError, Origin } from "./message.ts"
import type { ModelRef } from "./model-request.ts"
import { Runner, type TurnOutcome } from "./runner/llm.ts"
import { Session } from "./session.ts"
import { Turns } from "./turns.ts"

export interface PromptInput {
  readonly sessionID: string
  readonly text: string
  readonly origin?: Origin
  readonly agent?: string
  readonly model?: ModelRef
}

export interface SyntheticInput {
  readonly sessionID: string
  readonly text: string
  readonly origin: Origin
  readonly description?: string
  /** Wake the session to answer the notice. Default true. */
  readonly resume?: boolean
}

export interface ExecutionShape {
  /** Admits a user prompt after the `session.prompt` hook; starts a turn or queues behind the running one. */
  prompt(input: PromptInput): Effect.Effect<{ messageID: string }, SessionNotFoundError | InvalidInputError>
  /** Admits a notice after the `session.synthetic` hook; wakes the session unless `resume` is false. */
  synthetic(input: SyntheticInput): Effect.Effect<{ messageID: string }, SessionNotFoundError | InvalidInputError>
  /** Stops the running (or suspended) turn; queued input is delivered to the transcript without a turn. */
  interrupt(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  /** Completes when no turn of this session runs in this process. */
  wait(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  /** Continues without adding a message (resumes a suspended turn, or starts one on an idle session). */
  resume(
    sessionID: string,
    options?: { readonly notice?: string },
  ): Effect.Effect<{ readonly resumed: boolean }, SessionNotFoundError | BusyError>
  /** Starts a compaction turn (summarise the older transcript now); busy while a turn holds the session. */
  compact(sessionID: string): Effect.Effect<{ readonly turnID: string }, SessionNotFoundError | BusyError>
  /** Interrupts any turn, then deletes the session. */
  remove(sessionID: string): Effect.Effect<void, SessionNotFoundError>
  /** Whether a turn of this session runs in this process. */
  running(sessionID: string): boolean
}

/** How many resume attempts a claimed turn gets before it is failed and released. */
export const DEFAULT_RESUME_ATTEMPTS = 10

/**
 * Owns the turn loops of this process: one busy period per session, draining admitted input turn by turn.
 * Every start and end of a turn is a committed admission decision (see `admission.ts`); `Turns` only
 * records which claims this process is actively running, so a claim without an entry there is a
 * suspended turn (left by a killed or stopped process) waiting to be resumed.
 */
export class Execution extends Context.Service<Execution, ExecutionShape>()("@opencode-ai/core/session/Execution") {
  static readonly layer = Layer.effect(
    Execution,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const runner = yield* Runner
      const hooks = yield* Hooks
      const config = yield* Config
      const providers = yield* Providers
      const cap = config.data.server?.resumeAttempts ?? DEFAULT_RESUME_ATTEMPTS
      const owners = yield* Turns
      /** Admissions whose plugin hook threw: the turn they start fails with this error, recorded. */
      const failures = new Map<string, MessageError>()
      let stopping = false

      // Loops run in a child scope closed before `stopping` is read by their finalizers: on shutdown the
      // partial answer is recorded but the claim stays, so the next start resumes the turn.
      const scope = yield* Effect.scope
      const loops = yield* Scope.fork(scope, "parallel")
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          stopping = true
        }).pipe(Effect.andThen(Scope.close(loops, Exit.void))),
      )

      /** Runs a decision; a granted turn is registered inside the transaction and its loop forked after. */
      const decide = <E>(sessionID: string, make: () => { decision: Decision<E>; grant?: Grant }): Effect.Effect<Grant | undefined, E> =>
        Effect.gen(function* () {
          let grant: Grant | undefined
          yield* bus
            .transact(sessionID, () => {
              const result = make()
              grant = Array.isArray(result.decision) ? result.grant : undefined
              if (grant) {
                const owner = owners.get(sessionID)
                if (owner) owner.turnID = grant.turnID
                else owners.set(sessionID, { turnID: grant.turnID, idle: Deferred.makeUnsafe<void>() })
              }
              return result.decision
            })
            .pipe(
              Effect.catchTag("Bus.InvalidEventError", Effect.die),
              Effect.onError(() => Effect.sync(() => grant && owners.get(sessionID)?.turnID === grant.turnID && release(sessionID))),
            )
          return grant
        })

      const release = (sessionID: string) => {
        const owner = owners.get(sessionID)
        owners.delete(sessionID)
        if (owner) Deferred.doneUnsafe(owner.idle, Effect.void)
      }

      const runTurn = (sessionID: string, grant: Grant): Effect.Effect<TurnOutcome> => {
        const failure = grant.messageID ? failures.get(grant.messageID) : undefined
        if (grant.messageID) failures.delete(grant.messageID)
        if (failure) return runner.fail({ sessionID, turnID: grant.turnID, reason: grant.reason }, failure)
        // A compaction turn, or one resumed after a restart cut it off, compacts instead of answering.
        if (grant.reason === "compact" || (grant.reason === "resume" && session.sync.claimed(sessionID)?.reason === "compact")) {
          return runner.compact({ sessionID, turnID: grant.turnID, reason: "compact" })
        }
        return runner.run({ sessionID, turnID: grant.turnID, reason: grant.reason })
      }

      const loop = (sessionID: string, first: Grant) =>
        Effect.gen(function* () {
          let grant: Grant | undefined = first
          while (grant) {
            const current: Grant = grant
            const outcome = yield* runTurn(sessionID, current).pipe(
              Effect.onInterrupt(() =>
                stopping
                  ? Effect.void
                  : decide(sessionID, () =>
                      boundary(session.sync, sessionID, { turnID: current.turnID, outcome: "interrupted" }, { drain: true }),
                    ).pipe(Effect.ignore),
              ),
            )
            if (!session.sync.row(sessionID)) break
            grant = yield* decide(sessionID, () =>
              boundary(
                session.sync,
                sessionID,
                { turnID: current.turnID, outcome: outcome.outcome, ...(outcome.error ? { error: outcome.error } : {}) },
                { drain: false },
              ),
            )
          }
        }).pipe(Effect.ensuring(Effect.sync(() => release(sessionID))))

      const launch = (sessionID: string, grant: Grant | undefined) =>
        Effect.gen(function* () {
          if (!grant) return
          const owner = owners.get(sessionID)
          if (!owner || owner.fiber) return
          owner.fiber = yield* Effect.forkIn(loop(sessionID, grant), loops)
        })

      const requireText = (text: unknown, field: string) =>
        typeof text === "string" && text.trim().length > 0
          ? Effect.void
          : Effect.fail(new InvalidInputError({ message: `${field} must be a non-empty string`, field }))

      const admit = (sessionID: string, message: InputMessage, wake: boolean) =>
        Effect.gen(function* () {
          const grant = yield* decide(sessionID, () => admitInput(session.sync, sessionID, message, wake))
          yield* launch(sessionID, grant)
          return { messageID: message.id }
        })

      const textMessage = (sessionID: string, text: string) => ({
        id: ascending("msg"),
        sessionID,
        parts: [{ id: ascending("prt"), type: "text" as const, text }],
        time: { created: Date.now() },
      })

      const prompt = (input: PromptInput) =>
        Effect.gen(function* () {
          yield* requireText(input.text, "text")
          yield* checkChoice(config.data, providers, { agent: input.agent, model: input.model })
          yield* session.get(input.sessionID)
          const event: PromptEvent = { sessionID: input.sessionID, text: input.text, ...(input.agent ? { agentID: input.agent } : {}) }
          const hook = yield* Effect.result(hooks.run("prompt", event))
          const text = hook._tag === "Success" && typeof event.text === "string" && event.text ? event.text : input.text
          const message: InputMessage = {
            ...textMessage(input.sessionID, text),
            type: "user",
            origin: input.origin ?? "user",
            ...(input.agent ? { agent: input.agent } : {}),
            ...(input.model ? { model: input.model } : {}),
          }
          if (hook._tag === "Failure") failures.set(message.id, { name: hook.failure._tag, message: hook.failure.message })
          return yield* admit(input.sessionID, message, true)
        })

      const synthetic = (input: SyntheticInput) =>
        Effect.gen(function* () {
          yield* requireText(input.text, "text")
          yield* session.get(input.sessionID)
          const event: SyntheticEvent = {
            sessionID: input.sessionID,
            origin: input.origin,
            text: input.text,
            ...(input.description !== undefined ? { description: input.description } : {}),
          }
          const hook = yield* Effect.result(hooks.run("synthetic", event))
          const text = hook._tag === "Success" && typeof event.text === "string" && event.text ? event.text : input.text
          const message: InputMessage = {
            ...textMessage(input.sessionID, text),
            type: "synthetic",
            origin: input.origin,
            ...(input.description !== undefined ? { description: input.description } : {}),
          }
          const wake = input.resume ?? true
          if (hook._tag === "Failure" && wake) failures.set(message.id, { name: hook.failure._tag, message: hook.failure.message })
          return yield* admit(input.sessionID, message, wake)
        })

      const interrupt = (sessionID: string) =>
        Effect.gen(function* () {
          yield* session.get(sessionID)
          const owner = owners.get(sessionID)
          if (owner?.fiber) {
            yield* Fiber.interrupt(owner.fiber)
            return
          }
          const claim = session.sync.claimed(sessionID)
          if (claim && !owner) {
            yield* decide<never>(sessionID, () => {
              const ended = boundary(session.sync, sessionID, { turnID: claim.turn_id, outcome: "interrupted" }, { drain: true })
              return { decision: [...settleCutOff(session.sync, sessionID, claim.turn_id), ...(ended.decision as ReadonlyArray<Draft>)] }
            })
          }
        })

      const wait = (sessionID: string) =>
        Effect.gen(function* () {
          yield* session.get(sessionID)
          const owner = owners.get(sessionID)
          if (owner) yield* Deferred.await(owner.idle)
        })

      const resume = (sessionID: string, options: { readonly notice?: string } = {}) =>
        Effect.gen(function* () {
          const notice: InputMessage | undefined = options.notice
            ? { ...textMessage(sessionID, options.notice), type: "synthetic", origin: "host", description: "restart" }
            : undefined
          const grant = yield* decide(sessionID, () =>
            admitResume(session.sync, sessionID, { running: owners.has(sessionID), cap, ...(notice ? { notice } : {}) }),
          )
          yield* launch(sessionID, grant)
          return { resumed: grant !== undefined }
        })

      const compact = (sessionID: string) =>
        Effect.gen(function* () {
          const grant = yield* decide(sessionID, () => admitCompaction(session.sync, sessionID))
          yield* launch(sessionID, grant)
          return { turnID: grant!.turnID }
        })

      const remove = (sessionID: string) =>
        Effect.gen(function* () {
          yield* interrupt(sessionID)
          yield* session.remove(sessionID)
        })

      return Execution.of({
        prompt,
        synthetic,
        interrupt,
        wait,
        resume,
        compact,
        remove,
        running: (sessionID) => owners.has(sessionID),
      })
    }),
  )
}
