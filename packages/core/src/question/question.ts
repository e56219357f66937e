import type { QuestionAnswer, QuestionInfo, QuestionRequest } from "@opencode-ai/schema"
import { Context, Deferred, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft, type Draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { InvalidInputError, SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import { Database } from "../storage/database.ts"
import { QuestionNotFoundError } from "./error.ts"

export { QuestionNotFoundError }

/** How a question was settled: the answers, or a refusal. */
export type QuestionOutcome =
  { readonly type: "replied"; readonly answers: ReadonlyArray<QuestionAnswer> } | { readonly type: "rejected" }

export interface QuestionsShape {
  /** The session's pending questions, oldest first. */
  list(sessionID: string): Effect.Effect<ReadonlyArray<QuestionRequest>, SessionNotFoundError>
  /**
   * The question of a tool call, asked once: a call that already asked (the same `messageID` and
   * `callID`, e.g. resumed after a restart) gets its existing request back, pending or settled.
   */
  ask(input: {
    readonly sessionID: string
    readonly questions: ReadonlyArray<QuestionInfo>
    readonly tool: { readonly messageID: string; readonly callID: string }
  }): Effect.Effect<string>
  /** Waits until the request is settled (at once when it already was). */
  outcome(requestID: string): Effect.Effect<QuestionOutcome>
  /**
   * Answers a pending question: one answer per question, each a list of labels of its options (one
   * unless `multiple`), or free text when the question allows `custom` answers.
   */
  reply(input: {
    readonly sessionID: string
    readonly requestID: string
    readonly answers: ReadonlyArray<ReadonlyArray<string>>
  }): Effect.Effect<void, SessionNotFoundError | QuestionNotFoundError | InvalidInputError>
  /** Refuses to answer: the asking tool call fails. */
  reject(input: {
    readonly sessionID: string
    readonly requestID: string
  }): Effect.Effect<void, SessionNotFoundError | QuestionNotFoundError>
  /** Rejects every pending question of the session (interrupt); waiting calls are woken unless `wake` is false. */
  rejectPending(sessionID: string, options?: { readonly wake?: boolean }): Effect.Effect<void>
  readonly sync: {
    pending(sessionID: string): ReadonlyArray<QuestionRequest>
    /** Every session's pending questions, oldest first. */
    all(): ReadonlyArray<QuestionRequest>
    /** Every question asked by one message's calls, settled or not, oldest first (see `Permissions`). */
    ofMessage(sessionID: string, messageID: string): ReadonlyArray<QuestionRequest>
    /** Rejections of every pending question (to be committed inside the caller's transaction). */
    rejectDrafts(sessionID: string): Array<Draft>
  }
}

/** Checks `answers` against the questions; the first problem, naming the answer, or undefined. */
export const answerProblem = (
  questions: ReadonlyArray<QuestionInfo>,
  answers: ReadonlyArray<ReadonlyArray<string>>,
): string | undefined => {
  if (answers.length !== questions.length) {
    return `expected ${questions.length} answer(s), one per question, got ${answers.length}`
  }
  for (let i = 0; i < questions.length; i++) {
    const question = questions[i]!
    const answer = answers[i]!
    if (answer.length === 0) return `answers[${i}]: choose at least one option`
    if (answer.length > 1 && question.multiple !== true) {
      return `answers[${i}]: question "${question.header}" takes one choice, got ${answer.length}`
    }
    const labels = new Set(question.options.map((option) => option.label))
    for (const choice of answer) {
      if (labels.has(choice)) continue
      if (question.custom === false || choice.trim() === "") {
        return `answers[${i}]: ${JSON.stringify(choice)} is not an option of "${question.header}" (${[...labels].map((l) => JSON.stringify(l)).join(", ")})`
      }
    }
  }
  return undefined
}

/**
 * Questions put to the user by the `question` tool: durable requests (`question.v2.asked`), projected to
 * `session_question`, answered or rejected once. A call waiting for its answer holds the turn, like a
 * permission ask; after a restart the resumed call finds its request by tool call and waits for it.
 */
export class Questions extends Context.Service<Questions, QuestionsShape>()("@opencode-ai/core/question/Questions") {
  static readonly layer = Layer.effect(
    Questions,
    Effect.gen(function* () {
      const bus = yield* Bus
      const { client } = yield* Database
      const waiters = new Map<string, Set<Deferred.Deferred<QuestionOutcome>>>()

      const readSession = client.query<{ id: string }, [string]>("SELECT id FROM session WHERE id = ?")
      const readPending = client.query<{ data: string }, [string]>(
        "SELECT data FROM session_question WHERE session_id = ? AND state = 'pending' ORDER BY seq",
      )
      const readAllPending = client.query<{ data: string }, []>(
        "SELECT data FROM session_question WHERE state = 'pending' ORDER BY json_extract(data, '$.time'), id",
      )
      const readOne = client.query<
        { session_id: string; state: string; answers: string | null; data: string },
        [string]
      >("SELECT session_id, state, answers, data FROM session_question WHERE id = ?")
      const readOfMessage = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_question WHERE session_id = ? AND message_id = ? ORDER BY seq",
      )
      const readByCall = client.query<{ id: string }, [string, string, string]>(
        "SELECT id FROM session_question WHERE session_id = ? AND message_id = ? AND call_id = ?",
      )

      const pending = (sessionID: string): ReadonlyArray<QuestionRequest> =>
        readPending.all(sessionID).map((row) => JSON.parse(row.data) as QuestionRequest)

      const settled = (row: { state: string; answers: string | null }): QuestionOutcome | undefined =>
        row.state === "replied"
          ? { type: "replied", answers: JSON.parse(row.answers ?? "[]") as ReadonlyArray<QuestionAnswer> }
          : row.state === "rejected"
            ? { type: "rejected" }
            : undefined

      const wake = (requestID: string, outcome: QuestionOutcome) => {
        for (const waiter of waiters.get(requestID) ?? []) Deferred.doneUnsafe(waiter, Effect.succeed(outcome))
      }

      const rejectDrafts = (sessionID: string) =>
        pending(sessionID).map((request) => draft(SessionEvent.QuestionRejected, { requestID: request.id }))

      /** Finds the pending request or says why not, inside the session's transaction. */
      const target = (
        sessionID: string,
        requestID: string,
      ): { readonly reject: SessionNotFoundError | QuestionNotFoundError } | { readonly request: QuestionRequest } => {
        if (!readSession.get(sessionID)) return { reject: new SessionNotFoundError({ sessionID }) }
        const row = readOne.get(requestID)
        if (!row || row.session_id !== sessionID || row.state !== "pending") {
          return { reject: new QuestionNotFoundError({ sessionID, requestID }) }
        }
        return { request: JSON.parse(row.data) as QuestionRequest }
      }

      const implementation = Questions.of({
        list: Effect.fn("Questions.list")((sessionID) =>
          Effect.suspend(() =>
            readSession.get(sessionID)
              ? Effect.succeed(pending(sessionID))
              : Effect.fail(new SessionNotFoundError({ sessionID })),
          ),
        ),
        ask: Effect.fn("Questions.ask")(({ sessionID, questions, tool }) =>
          Effect.gen(function* () {
            let requestID = ""
            yield* bus
              .transact<never>(sessionID, () => {
                const existing = readByCall.get(sessionID, tool.messageID, tool.callID)
                if (existing) {
                  requestID = existing.id
                  return []
                }
                requestID = ascending("per")
                return [
                  draft(SessionEvent.QuestionAsked, {
                    id: requestID,
                    questions: questions.map((q) => ({ ...q, options: q.options.map((o) => ({ ...o })) })),
                    tool: { messageID: tool.messageID, callID: tool.callID },
                  }),
                ]
              })
              .pipe(Effect.orDie)
            return requestID
          }),
        ),
        outcome: Effect.fn("Questions.outcome")((requestID) =>
          Effect.gen(function* () {
            const deferred = Deferred.makeUnsafe<QuestionOutcome>()
            let set = waiters.get(requestID)
            if (!set) waiters.set(requestID, (set = new Set()))
            set.add(deferred)
            const row = readOne.get(requestID)
            // Settled while nobody waited (before a restart, or between ask and wait): the stored outcome.
            if (!row) Deferred.doneUnsafe(deferred, Effect.succeed({ type: "rejected" } as const))
            else {
              const done = settled(row)
              if (done) Deferred.doneUnsafe(deferred, Effect.succeed(done))
            }
            return yield* Deferred.await(deferred).pipe(
              Effect.ensuring(
                Effect.sync(() => {
                  set.delete(deferred)
                  if (set.size === 0) waiters.delete(requestID)
                }),
              ),
            )
          }),
        ),
        reply: Effect.fn("Questions.reply")(({ sessionID, requestID, answers }) =>
          Effect.gen(function* () {
            const copy = answers.map((answer) => [...answer])
            yield* bus.transact<SessionNotFoundError | QuestionNotFoundError | InvalidInputError>(sessionID, () => {
              const found = target(sessionID, requestID)
              if ("reject" in found) return { reject: found.reject }
              const problem = answerProblem(found.request.questions, copy)
              if (problem) return { reject: new InvalidInputError({ message: problem, field: "answers" }) }
              return [draft(SessionEvent.QuestionReplied, { requestID, answers: copy })]
            })
            wake(requestID, { type: "replied", answers: copy })
          }),
        ),
        reject: Effect.fn("Questions.reject")(({ sessionID, requestID }) =>
          Effect.gen(function* () {
            yield* bus.transact<SessionNotFoundError | QuestionNotFoundError>(sessionID, () => {
              const found = target(sessionID, requestID)
              if ("reject" in found) return { reject: found.reject }
              return [draft(SessionEvent.QuestionRejected, { requestID })]
            })
            wake(requestID, { type: "rejected" })
          }),
        ),
        rejectPending: Effect.fn("Questions.rejectPending")((sessionID, options = {}) =>
          Effect.gen(function* () {
            let rejected: ReadonlyArray<string> = []
            yield* bus
              .transact<never>(sessionID, () => {
                const drafts = rejectDrafts(sessionID)
                rejected = drafts.map((d) => (d.data as { requestID: string }).requestID)
                return drafts
              })
              .pipe(Effect.orDie)
            if (options.wake !== false) for (const id of rejected) wake(id, { type: "rejected" })
          }),
        ),
        sync: {
          pending,
          rejectDrafts,
          all: () => readAllPending.all().map((row) => JSON.parse(row.data) as QuestionRequest),
          ofMessage: (sessionID, messageID) =>
            readOfMessage.all(sessionID, messageID).map((row) => JSON.parse(row.data) as QuestionRequest),
        },
      })
      return implementation
    }),
  )
}
