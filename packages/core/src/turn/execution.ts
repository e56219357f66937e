import type { PromptEvent, SyntheticEvent } from "@opencode-ai/plugin"
import type { Delivery, InputAdmitted, ModelRef, Prompt, PromptInput as PromptBody } from "@opencode-ai/schema"
import { Context, Deferred, Effect, Exit, Layer, Scope } from "effect"
import { Bus, type Decision } from "../bus/bus.ts"
import { Commands } from "../command/commands.ts"
import { subtaskOf } from "./command-subtask.ts"
import type { Draft, Envelope } from "../bus/event.ts"
import { Config } from "../config/config.ts"
import { ascending } from "../id/id.ts"
import { Permissions } from "../permission/permission.ts"
import { Questions } from "../question/question.ts"
import { Hooks, hookTimeout } from "../hooks/hooks.ts"
import { Providers } from "../provider/registry.ts"
import {
  admitInput,
  admitResume,
  boundary,
  DEFAULT_QUEUE_LIMIT,
  type Grant,
  type Input,
  settleCutOff,
} from "./admission.ts"
import { resolveAttachments } from "./attachment.ts"
import { type AskReads, awaitsAnswer } from "./awaited-answer.ts"
import { checkChoice } from "./choice.ts"
import { admitCompaction } from "./compaction.ts"
import {
  type BusyError,
  InvalidInputError,
  QueueFullError,
  SessionNotFoundError,
  type TooLargeError,
} from "../domain/error.ts"
import { hookEdit } from "./hook-edit.ts"
import type { ErrorInfo, Origin } from "../domain/message.ts"
import { Runner, type TurnOutcome } from "./runner/llm.ts"
import { Session } from "../session/session.ts"
import { Subagents } from "./subagent.ts"
import { type Turn, Turns } from "../session/turns.ts"

export interface PromptInput {
  readonly sessionID: string
  /** A client-chosen message id (`msg_...`): a repeated id answers the first admission and stores nothing. */
  readonly id?: string
  readonly prompt: PromptBody
  /** How the prompt meets a running turn; default `queue`. */
  readonly delivery?: Delivery
  /** Start (or continue) a turn to answer it. Default true; false only stores the prompt. */
  readonly resume?: boolean
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

/** An admitted input: upstream's `SessionInputAdmitted`, plus whether it waits behind a running turn. */
export type Admitted = InputAdmitted

export interface ExecutionShape {
  /**
   * Admits a user prompt after the `session.prompt` hook; starts a turn or queues behind the running one.
   * `Session.QueueFullError` when `session.queueLimit` inputs already wait (nothing stored).
   */
  prompt(
    input: PromptInput,
  ): Effect.Effect<Admitted, SessionNotFoundError | InvalidInputError | QueueFullError | TooLargeError>
  /** Admits a notice after the `session.synthetic` hook; wakes the session unless `resume` is false. */
  synthetic(input: SyntheticInput): Effect.Effect<Admitted, SessionNotFoundError | InvalidInputError | QueueFullError>
  /** Switches the agent later turns use (checked against the configured agents). */
  switchAgent(sessionID: string, agent: string): Effect.Effect<void, SessionNotFoundError | InvalidInputError>
  /** Switches the model later turns use (checked against the providers). */
  switchModel(sessionID: string, model: ModelRef): Effect.Effect<void, SessionNotFoundError | InvalidInputError>
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
  /**
   * Marks sessions a background restart resume will reach: `wait` on one waits for its resume to be
   * decided first. The returned function settles one (called once its resume was decided or skipped).
   */
  reserveResume(sessionIDs: ReadonlyArray<string>): (sessionID: string) => void
}

/** A turn just granted to a new loop (or continuing one): the loop's entry and the grant. */
interface Started {
  readonly owner: Turn
  readonly grant: Grant
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
      const commands = yield* Commands
      const providers = yield* Providers
      const cap = config.data.server?.resumeAttempts ?? DEFAULT_RESUME_ATTEMPTS
      const queueLimit = config.data.session?.queueLimit ?? DEFAULT_QUEUE_LIMIT
      const turns = yield* Turns
      const permissions = yield* Permissions
      const questions = yield* Questions
      const asks: AskReads = { permissions: permissions.sync.ofMessage, questions: questions.sync.ofMessage }
      /** Admissions whose plugin hook threw: the turn they start fails with this error, recorded. */
      const failures = new Map<string, ErrorInfo>()
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

      /**
       * Runs a decision. `Turns` changes in the same synchronous step as the claim it mirrors (inside the
       * transaction callback, with no yield in between): a grant to a new loop claims its entry, and a
       * boundary taken by a loop (`by`) that releases the claim releases that loop's entry. So the entry
       * exists exactly while this process holds the claim, and no admission can see one without the other.
       */
      const decide = <E>(
        sessionID: string,
        make: () => { decision: Decision<E>; grant?: Grant },
        by?: Turn,
      ): Effect.Effect<Started | undefined, E> => Effect.map(decideAll(sessionID, make, by), (result) => result.started)

      /** `decide`, also answering the envelopes the decision committed. */
      const decideAll = <E>(
        sessionID: string,
        make: () => { decision: Decision<E>; grant?: Grant },
        by?: Turn,
      ): Effect.Effect<{ started?: Started; envelopes: ReadonlyArray<Envelope> }, E> =>
        Effect.gen(function* () {
          let next: Started | undefined
          let ended = false
          const envelopes = yield* bus
            .transact(sessionID, () => {
              const result = make()
              if (!Array.isArray(result.decision)) return result.decision
              const grant = result.grant
              if (by && grant) {
                turns.advance(by, grant.turnID)
                next = { owner: by, grant }
              } else if (by) {
                ended = turns.release(sessionID, by)
              } else if (grant) {
                const owner = turns.claim(sessionID, grant.turnID)
                // Admission grants only while no claim is held, and the entry mirrors the claim: a refusal is
                // a broken invariant, and throwing here rolls the grant back (a defect) rather than run two loops.
                if (!owner) throw new Error(`session ${sessionID} already has a running turn in this process`)
                next = { owner, grant }
              }
              return result.decision
            })
            .pipe(
              // Nothing committed: a fresh entry is dropped (its loop never forks).
              Effect.onError(() => Effect.sync(() => next && !by && turns.finish(sessionID, next.owner))),
            )
          if (ended && by) turns.finish(sessionID, by)
          return { ...(next ? { started: next } : {}), envelopes }
        })

      const runTurn = (sessionID: string, grant: Grant): Effect.Effect<TurnOutcome> => {
        const failure = grant.messageID ? failures.get(grant.messageID) : undefined
        if (grant.messageID) failures.delete(grant.messageID)
        if (failure) return runner.fail({ sessionID, turnID: grant.turnID, reason: grant.reason }, failure)
        // A compaction turn, or one resumed after a restart cut it off, compacts instead of answering.
        if (
          grant.reason === "compact" ||
          (grant.reason === "resume" && session.sync.claimed(sessionID)?.reason === "compact")
        ) {
          return runner.compact({ sessionID, turnID: grant.turnID, reason: "compact" })
        }
        return runner.run({ sessionID, turnID: grant.turnID, reason: grant.reason })
      }

      /**
       * The busy period of one session. It runs uninterruptible except while a turn itself runs, so an
       * interrupt (even one sent before the fiber first ran) always lands inside a turn and ends it with
       * an `interrupted` boundary that releases the claim; decisions between turns are never cut in half.
       */
      const loop = (sessionID: string, owner: Turn, first: Grant) =>
        Effect.gen(function* () {
          let grant: Grant | undefined = first
          while (grant) {
            const current: Grant = grant
            const turn = owner.stopped ? Effect.interrupt : Effect.interruptible(runTurn(sessionID, current))
            const outcome = yield* turn.pipe(
              Effect.onInterrupt(() =>
                stopping
                  ? Effect.void
                  : decide(
                      sessionID,
                      () =>
                        boundary(
                          session.sync,
                          sessionID,
                          { turnID: current.turnID, outcome: "interrupted" },
                          { drain: true },
                        ),
                      owner,
                    ).pipe(
                      Effect.ignore({
                        log: "Warn",
                        message: `session ${sessionID}: ending the interrupted turn failed`,
                      }),
                    ),
              ),
            )
            if (!session.sync.row(sessionID)) break
            const next: Started | undefined = yield* decide(
              sessionID,
              () =>
                boundary(
                  session.sync,
                  sessionID,
                  {
                    turnID: current.turnID,
                    outcome: outcome.outcome,
                    ...(outcome.error ? { error: outcome.error } : {}),
                  },
                  { drain: false },
                ),
              owner,
            )
            grant = next?.grant
          }
        })

      /**
       * Forks the loop of a freshly granted turn. The fiber starts uninterruptible (see `loop`), and its
       * entry is retired by an observer of the fiber's exit, attached before anything else can run, so
       * the entry goes even when the fiber is interrupted before it starts (or never starts on shutdown).
       */
      const launch = (sessionID: string, started: Started | undefined) =>
        Effect.gen(function* () {
          if (!started) return
          const fiber = yield* Effect.forkIn(loop(sessionID, started.owner, started.grant), loops, {
            uninterruptible: true,
          })
          turns.attach(sessionID, started.owner, fiber)
        })

      const requireText = (text: unknown, field: string) =>
        typeof text === "string" && text.trim().length > 0
          ? Effect.void
          : Effect.fail(new InvalidInputError({ message: `${field} must be a non-empty string`, field }))

      /** What an input already admitted (a repeated client-chosen id) was admitted as, if it exists. */
      const existing = (sessionID: string, messageID: string): Admitted | undefined => {
        const queued = session.sync.queued(sessionID, messageID)
        const message = queued ? undefined : session.sync.message(sessionID, messageID)
        if (queued) {
          const prompt = queued.kind === "prompt" ? queued.data.prompt : { text: queued.data.text }
          return {
            id: messageID,
            sessionID,
            admittedSeq: session.sync.queuedSeq(sessionID, messageID) ?? 0,
            prompt,
            delivery: queued.kind === "prompt" ? queued.data.delivery : "queue",
            timeCreated: queued.time,
            queued: true,
          }
        }
        if (message?.type !== "user" && message?.type !== "synthetic") return undefined
        return {
          id: messageID,
          sessionID,
          admittedSeq: message.seq,
          prompt:
            message.type === "user"
              ? { text: message.text, ...(message.files ? { files: message.files } : {}) }
              : { text: message.text },
          delivery: "queue",
          timeCreated: message.time.created,
          queued: false,
        }
      }

      // Admission and launch are one uninterruptible step: a caller that goes away in between (a closed
      // HTTP request) cannot leave a granted claim without a loop. A refusal drops the hook failure kept
      // for the turn this input would have started.
      const admit = (sessionID: string, input: Input, prompt: Prompt) =>
        Effect.gen(function* () {
          const { started, envelopes } = yield* decideAll(sessionID, () =>
            admitInput(session.sync, sessionID, input, queueLimit),
          )
          yield* launch(sessionID, started)
          const first = envelopes[0]!
          const queued = first.type !== "session.next.prompt.admitted" && first.type !== "session.next.synthetic"
          return {
            id: input.data.messageID,
            sessionID,
            admittedSeq: first.seq,
            prompt,
            delivery: input.kind === "prompt" ? input.data.delivery : "queue",
            // The commit's time, which the stored message (or queued input) carries too: a repeated id
            // answers the same.
            timeCreated: first.time,
            queued,
          } satisfies Admitted
        }).pipe(
          Effect.onError(() => Effect.sync(() => failures.delete(input.data.messageID))),
          Effect.uninterruptible,
        )

      /**
       * Refuses input to a full inbox before its hook runs, so plugins do not see a prompt that cannot be
       * queued. Advisory only: the binding decision is `admitInput`'s, inside the commit transaction.
       */
      const roomFor = (sessionID: string) =>
        session.sync.claimed(sessionID) && session.sync.queuedCount(sessionID) >= queueLimit
          ? Effect.fail(new QueueFullError({ sessionID, limit: queueLimit }))
          : Effect.void

      const checkID = (sessionID: string, id: string | undefined) =>
        id === undefined || /^msg_[0-9A-Za-z]{1,64}$/.test(id)
          ? Effect.succeed(id === undefined ? undefined : existing(sessionID, id))
          : Effect.fail(
              new InvalidInputError({
                message: "id must be a message id of the form msg_<letters and digits>",
                field: "id",
              }),
            )

      const prompt = Effect.fn("Execution.prompt")((input: PromptInput) =>
        Effect.gen(function* () {
          yield* requireText(input.prompt?.text, "prompt.text")
          yield* checkChoice(config.data, providers, { agent: input.agent, model: input.model })
          const info = yield* session.get(input.sessionID)
          const repeated = yield* checkID(input.sessionID, input.id)
          if (repeated) return repeated
          yield* roomFor(input.sessionID)
          // Advisory, before the hook runs; the binding check is the admission's, in the commit transaction.
          if (input.id !== undefined && session.sync.messageIDTaken(input.id))
            return yield* new InvalidInputError({
              message: `id ${input.id} is already used by another message`,
              field: "id",
            })
          const files = yield* resolveAttachments(info.location.directory, input.prompt.files)
          // `/name args` naming a command is admitted as its template, expanded: the stored message (and the
          // `session.prompt` hook) see what is sent to the model. The prompt's own agent and model win over
          // the command's. Text naming no command is admitted as it is.
          const expansion = yield* commands.expand(info.location.directory, input.prompt.text)
          // A `subtask: true` command's agent is the subagent that runs it, not this session's agent.
          const { subtask, problem } = expansion ? subtaskOf(config.data, expansion) : {}
          if (problem) return yield* new InvalidInputError({ message: problem, field: "prompt.text" })
          const commandAgent = subtask ? undefined : expansion?.command.agent
          const agent = input.agent ?? commandAgent
          const model = input.model ?? expansion?.command.model
          if (expansion)
            yield* checkChoice(config.data, providers, {
              agent: input.agent === undefined ? commandAgent : undefined,
              model: input.model === undefined ? expansion.command.model : undefined,
            }).pipe(
              Effect.mapError(
                (error) =>
                  new InvalidInputError({
                    message: `command /${expansion.command.name}: ${error.message}`,
                    field: "prompt.text",
                  }),
              ),
            )
          // `$1` alone and no argument: there would be nothing to answer.
          if (expansion && expansion.text.trim() === "")
            return yield* new InvalidInputError({
              message: `command /${expansion.command.name} expands to empty text; give it arguments`,
              field: "prompt.text",
            })
          const sent = expansion?.text ?? input.prompt.text
          const event: PromptEvent = {
            sessionID: input.sessionID,
            text: sent,
            ...(agent ? { agentID: agent } : {}),
          }
          const { text, failure } = yield* hookEdit(hooks, "prompt", event, hookTimeout(config.data))
          const messageID = input.id ?? ascending("msg")
          const stored: Prompt = {
            text,
            ...(files ? { files } : {}),
            ...(input.prompt.agents ? { agents: input.prompt.agents } : {}),
          }
          if (failure) failures.set(messageID, failure)
          const delivery = input.delivery ?? "queue"
          const admitted = admit(
            input.sessionID,
            {
              kind: "prompt",
              wake: input.resume !== false,
              data: {
                messageID,
                prompt: stored,
                delivery,
                origin: input.origin ?? "user",
                ...(agent ? { agent } : {}),
                ...(model ? { model } : {}),
                ...(subtask ? { subtask } : {}),
              },
            },
            stored,
          )
          // The same id admitted concurrently (a client retrying at once) answers the admission that won.
          return yield* Effect.catchIf(
            admitted,
            (error) => error._tag === "Session.InvalidInputError" && error.field === "id",
            (error) => {
              const first = input.id === undefined ? undefined : existing(input.sessionID, input.id)
              return first ? Effect.succeed(first) : Effect.fail(error)
            },
          )
        }),
      )

      const synthetic = Effect.fn("Execution.synthetic")((input: SyntheticInput) =>
        Effect.gen(function* () {
          yield* requireText(input.text, "text")
          yield* session.get(input.sessionID)
          yield* roomFor(input.sessionID)
          const event: SyntheticEvent = {
            sessionID: input.sessionID,
            origin: input.origin,
            text: input.text,
            ...(input.description !== undefined ? { description: input.description } : {}),
          }
          const { text, failure } = yield* hookEdit(hooks, "synthetic", event, hookTimeout(config.data))
          const messageID = ascending("msg")
          const wake = input.resume ?? true
          if (failure && wake) failures.set(messageID, failure)
          return yield* admit(
            input.sessionID,
            {
              kind: "synthetic",
              wake,
              data: {
                messageID,
                text,
                origin: input.origin,
                ...(input.description !== undefined ? { description: input.description } : {}),
              },
            },
            { text },
          )
        }),
      )

      const switchAgent = Effect.fn("Execution.switchAgent")((sessionID: string, agent: string) =>
        Effect.gen(function* () {
          if (typeof agent !== "string" || agent.length === 0)
            return yield* new InvalidInputError({ message: "agent must be a non-empty string", field: "agent" })
          yield* checkChoice(config.data, providers, { agent })
          yield* session.switchAgent(sessionID, agent)
        }),
      )

      const switchModel = Effect.fn("Execution.switchModel")((sessionID: string, model: ModelRef) =>
        Effect.gen(function* () {
          yield* checkChoice(config.data, providers, { model })
          yield* session.switchModel(sessionID, model)
        }),
      )

      const interrupt = Effect.fn("Execution.interrupt")((sessionID: string) =>
        Effect.gen(function* () {
          yield* session.get(sessionID)
          const owner = turns.current(sessionID)
          if (owner) {
            // Pending permission asks and questions are rejected (durably) before the turn stops.
            yield* permissions.rejectPending(sessionID, undefined, { wake: false })
            yield* questions.rejectPending(sessionID, { wake: false })
            return yield* turns.interrupt(owner)
          }
          if (!session.sync.claimed(sessionID)) return
          // A suspended claim (no loop here) is ended directly. The claim and the entry are read inside the
          // transaction: a turn granted since the read above is stopped like any running one.
          let raced: Turn | undefined
          yield* decide<never>(sessionID, () => {
            raced = turns.current(sessionID)
            const claim = session.sync.claimed(sessionID)
            if (raced || !claim) return { decision: [] }
            const ended = boundary(
              session.sync,
              sessionID,
              { turnID: claim.turn_id, outcome: "interrupted" },
              { drain: true },
            )
            return {
              decision: [
                ...permissions.sync.rejectDrafts(sessionID),
                ...questions.sync.rejectDrafts(sessionID),
                ...settleCutOff(session.sync, sessionID, claim.turn_id),
                ...(ended.decision as ReadonlyArray<Draft>),
              ],
            }
          })
          if (raced) {
            yield* permissions.rejectPending(sessionID, undefined, { wake: false })
            yield* questions.rejectPending(sessionID, { wake: false })
            yield* turns.interrupt(raced)
          }
        }),
      )

      // Sessions a background restart resume has yet to reach (see `reserveResume`).
      const resuming = new Map<string, Deferred.Deferred<void>>()
      const settleResume = (sessionID: string) => {
        const pending = resuming.get(sessionID)
        if (!pending) return
        resuming.delete(sessionID)
        Deferred.doneUnsafe(pending, Effect.void)
      }

      const wait = Effect.fn("Execution.wait")((sessionID: string) =>
        Effect.gen(function* () {
          yield* session.get(sessionID)
          const pending = resuming.get(sessionID)
          if (pending) yield* Deferred.await(pending)
          yield* turns.idle(sessionID)
        }),
      )

      /** The restart notice is a host notice like any other: the `synthetic` hook sees it first. */
      const restartNotice = (sessionID: string, text: string | undefined) =>
        Effect.gen(function* () {
          if (!text) return undefined
          const event: SyntheticEvent = { sessionID, origin: "host", description: "restart", text }
          const { text: edited, failure } = yield* hookEdit(hooks, "synthetic", event, hookTimeout(config.data))
          const messageID = ascending("msg")
          const notice: Input = {
            kind: "synthetic",
            wake: true,
            data: { messageID, text: edited, origin: "host", description: "restart" },
          }
          if (failure) failures.set(messageID, failure)
          return notice
        })

      const compact = Effect.fn("Execution.compact")((sessionID: string) =>
        Effect.gen(function* () {
          const started = yield* decide(sessionID, () => admitCompaction(session.sync, sessionID))
          yield* launch(sessionID, started)
          return { turnID: started!.grant.turnID }
        }).pipe(Effect.uninterruptible),
      )

      const resume = Effect.fn("Execution.resume")((sessionID: string, options: { readonly notice?: string } = {}) =>
        Effect.flatMap(restartNotice(sessionID, options.notice), (notice) =>
          Effect.gen(function* () {
            const started = yield* decide(sessionID, () => {
              // A call that asked (answered yet or not) keeps its message open; if the turn is given up, its
              // pending asks are rejected. So does a running `task` call: its child resumes too.
              const claim = session.sync.claimed(sessionID)
              const kept = claim
                ? session.sync.incomplete(sessionID, claim.turn_id).filter((m) => awaitsAnswer(sessionID, m, asks))
                : []
              return admitResume(session.sync, sessionID, {
                running: turns.current(sessionID) !== undefined,
                cap,
                ...(notice ? { notice } : {}),
                permissions: {
                  messages: new Set(kept.map((m) => m.id)),
                  reject: [...permissions.sync.rejectDrafts(sessionID), ...questions.sync.rejectDrafts(sessionID)],
                },
              })
            }).pipe(Effect.onError(() => Effect.sync(() => notice && failures.delete(notice.data.messageID))))
            // A notice whose resume gave up (attempt cap) starts no turn: nothing will read its failure.
            if (notice && !started) failures.delete(notice.data.messageID)
            yield* launch(sessionID, started)
            return { resumed: started !== undefined }
          }).pipe(Effect.uninterruptible),
        ),
      )

      const remove = Effect.fn("Execution.remove")((sessionID: string) =>
        Effect.gen(function* () {
          yield* interrupt(sessionID)
          yield* session.remove(sessionID)
        }),
      )

      const implementation = Execution.of({
        prompt,
        synthetic,
        switchAgent,
        switchModel,
        interrupt,
        wait,
        resume,
        compact,
        remove,
        running: (sessionID) => turns.current(sessionID) !== undefined,
        reserveResume: (sessionIDs) => {
          for (const id of sessionIDs) if (!resuming.has(id)) resuming.set(id, Deferred.makeUnsafe<void>())
          return settleResume
        },
      })
      // Every method a named span; the `task` tool (bound below) runs children through the spanned ones.
      const shape = implementation
      // The `task` tool runs children through this service, which is built on the runner offering it.
      ;(yield* Subagents).bind({ ...shape, stopping: () => stopping })
      return shape
    }),
  )
}
