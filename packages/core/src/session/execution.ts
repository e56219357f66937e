import type { PromptEvent, SyntheticEvent } from "@opencode-ai/plugin"
import type { Delivery, InputAdmitted, ModelRef, Prompt, PromptInput as PromptBody } from "@opencode-ai/schema"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { Bus, type Decision } from "../bus/bus.ts"
import { Commands } from "../command/commands.ts"
import type { Draft, Envelope } from "../bus/event.ts"
import { Config } from "../config/config.ts"
import { ascending } from "../id/id.ts"
import { Permissions } from "../permission/permission.ts"
import { Questions } from "../question/question.ts"
import { Hooks, recordedHookError } from "../plugin/hooks.ts"
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
import { checkChoice } from "./choice.ts"
import { admitCompaction } from "./compaction.ts"
import { type BusyError, InvalidInputError, QueueFullError, SessionNotFoundError } from "./error.ts"
import type { ErrorInfo, Origin } from "./message.ts"
import { Runner, type TurnOutcome } from "./runner/llm.ts"
import { Session } from "./session.ts"
import { runningTask, Subagents } from "./subagent.ts"
import { type Turn, Turns } from "./turns.ts"
import { withServiceSpans } from "../telemetry/service-spans.ts"

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
  prompt(input: PromptInput): Effect.Effect<Admitted, SessionNotFoundError | InvalidInputError | QueueFullError>
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
      const owners = yield* Turns
      const permissions = yield* Permissions
      const questions = yield* Questions
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
       * transaction callback, with no yield in between): a grant to a new loop registers its entry, and a
       * boundary taken by a loop (`by`) that releases the claim removes that loop's entry. So the entry
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
                by.turnID = grant.turnID
                next = { owner: by, grant }
              } else if (by && owners.get(sessionID) === by) {
                owners.delete(sessionID)
                ended = true
              } else if (!by && grant) {
                const owner: Turn = { turnID: grant.turnID, idle: Deferred.makeUnsafe<void>() }
                owners.set(sessionID, owner)
                next = { owner, grant }
              }
              return result.decision
            })
            .pipe(
              Effect.catchTag("Bus.InvalidEventError", Effect.die),
              // Nothing committed: a fresh entry is dropped (its loop never forks).
              Effect.onError(() => Effect.sync(() => next && !by && retire(sessionID, next.owner))),
            )
          if (ended && by) Deferred.doneUnsafe(by.idle, Effect.void)
          return { ...(next ? { started: next } : {}), envelopes }
        })

      /** Drops a loop's entry (when it is still the current one) and opens its latch. */
      const retire = (sessionID: string, owner: Turn) => {
        if (owners.get(sessionID) === owner) owners.delete(sessionID)
        Deferred.doneUnsafe(owner.idle, Effect.void)
      }

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
                    ).pipe(Effect.ignore),
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
          fiber.addObserver(() => retire(sessionID, started.owner))
          started.owner.fiber = fiber
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

      const prompt = (input: PromptInput) =>
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
          const agent = input.agent ?? expansion?.command.agent
          const model = input.model ?? expansion?.command.model
          if (expansion)
            yield* checkChoice(config.data, providers, {
              agent: input.agent === undefined ? expansion.command.agent : undefined,
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
          const hook = yield* Effect.result(hooks.run("prompt", event))
          const text = hook._tag === "Success" && typeof event.text === "string" && event.text ? event.text : sent
          const messageID = input.id ?? ascending("msg")
          const stored: Prompt = {
            text,
            ...(files ? { files } : {}),
            ...(input.prompt.agents ? { agents: input.prompt.agents } : {}),
          }
          if (hook._tag === "Failure") failures.set(messageID, recordedHookError(hook.failure))
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
        })

      const synthetic = (input: SyntheticInput) =>
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
          const hook = yield* Effect.result(hooks.run("synthetic", event))
          const text = hook._tag === "Success" && typeof event.text === "string" && event.text ? event.text : input.text
          const messageID = ascending("msg")
          const wake = input.resume ?? true
          if (hook._tag === "Failure" && wake) failures.set(messageID, recordedHookError(hook.failure))
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
        })

      const switchAgent = (sessionID: string, agent: string) =>
        Effect.gen(function* () {
          if (typeof agent !== "string" || agent.length === 0)
            return yield* new InvalidInputError({ message: "agent must be a non-empty string", field: "agent" })
          yield* checkChoice(config.data, providers, { agent })
          yield* session.switchAgent(sessionID, agent)
        })

      const switchModel = (sessionID: string, model: ModelRef) =>
        Effect.gen(function* () {
          yield* checkChoice(config.data, providers, { model })
          yield* session.switchModel(sessionID, model)
        })

      /** Stops a loop of this process and waits until it has released the claim. */
      const stop = (owner: Turn) =>
        Effect.gen(function* () {
          owner.stopped = true
          if (owner.fiber) yield* Fiber.interrupt(owner.fiber)
          yield* Deferred.await(owner.idle)
        })

      const interrupt = (sessionID: string) =>
        Effect.gen(function* () {
          yield* session.get(sessionID)
          const owner = owners.get(sessionID)
          if (owner) {
            // Pending permission asks and questions are rejected (durably) before the turn stops.
            yield* permissions.rejectPending(sessionID, undefined, { wake: false })
            yield* questions.rejectPending(sessionID, { wake: false })
            return yield* stop(owner)
          }
          if (!session.sync.claimed(sessionID)) return
          // A suspended claim (no loop here) is ended directly. The claim and the entry are read inside the
          // transaction: a turn granted since the read above is stopped like any running one.
          let raced: Turn | undefined
          yield* decide<never>(sessionID, () => {
            raced = owners.get(sessionID)
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
            yield* stop(raced)
          }
        })

      const wait = (sessionID: string) =>
        Effect.gen(function* () {
          yield* session.get(sessionID)
          const owner = owners.get(sessionID)
          if (owner) yield* Deferred.await(owner.idle)
        })

      /** The restart notice is a host notice like any other: the `synthetic` hook sees it first. */
      const restartNotice = (sessionID: string, text: string | undefined) =>
        Effect.gen(function* () {
          if (!text) return undefined
          const event: SyntheticEvent = { sessionID, origin: "host", description: "restart", text }
          const hook = yield* Effect.result(hooks.run("synthetic", event))
          const edited = hook._tag === "Success" && typeof event.text === "string" && event.text ? event.text : text
          const messageID = ascending("msg")
          const notice: Input = {
            kind: "synthetic",
            wake: true,
            data: { messageID, text: edited, origin: "host", description: "restart" },
          }
          if (hook._tag === "Failure") failures.set(messageID, recordedHookError(hook.failure))
          return notice
        })

      const compact = (sessionID: string) =>
        Effect.gen(function* () {
          const started = yield* decide(sessionID, () => admitCompaction(session.sync, sessionID))
          yield* launch(sessionID, started)
          return { turnID: started!.grant.turnID }
        }).pipe(Effect.uninterruptible)

      const resume = (sessionID: string, options: { readonly notice?: string } = {}) =>
        Effect.flatMap(restartNotice(sessionID, options.notice), (notice) =>
          Effect.gen(function* () {
            const started = yield* decide(sessionID, () => {
              // A call waiting for permission keeps its message open; if the turn is given up, its asks are rejected.
              // So does a running `task` call: its child resumes too, and the call completes once.
              const pending = permissions.sync.pending(sessionID)
              const claim = session.sync.claimed(sessionID)
              const tasks = claim ? session.sync.incomplete(sessionID, claim.turn_id).filter(runningTask) : []
              const asked = questions.sync.pending(sessionID).flatMap((q) => (q.tool ? [q.tool.messageID] : []))
              return admitResume(session.sync, sessionID, {
                running: owners.has(sessionID),
                cap,
                ...(notice ? { notice } : {}),
                permissions: {
                  messages: new Set([
                    ...pending.map((ask) => ask.source.messageID),
                    ...tasks.map((m) => m.id),
                    ...asked,
                  ]),
                  reject: [...permissions.sync.rejectDrafts(sessionID), ...questions.sync.rejectDrafts(sessionID)],
                },
              })
            }).pipe(Effect.onError(() => Effect.sync(() => notice && failures.delete(notice.data.messageID))))
            // A notice whose resume gave up (attempt cap) starts no turn: nothing will read its failure.
            if (notice && !started) failures.delete(notice.data.messageID)
            yield* launch(sessionID, started)
            return { resumed: started !== undefined }
          }).pipe(Effect.uninterruptible),
        )

      const remove = (sessionID: string) =>
        Effect.gen(function* () {
          yield* interrupt(sessionID)
          yield* session.remove(sessionID)
        })

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
        running: (sessionID) => owners.has(sessionID),
      })
      // Every method a named span; the `task` tool (bound below) runs children through the spanned ones.
      const shape = withServiceSpans("Execution", implementation)
      // The `task` tool runs children through this service, which is built on the runner offering it.
      ;(yield* Subagents).bind({ ...shape, stopping: () => stopping })
      return shape
    }),
  )
}
