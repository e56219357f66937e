import { Context, Effect, Layer } from "effect"
import { Bus, type Decision } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { admitMutation } from "./admission.ts"
import {
  type ForbiddenError,
  InvalidInputError,
  type QueueFullError,
  InvalidTargetError,
  MessageNotFoundError,
  PartNotFoundError,
  type SessionError,
} from "./error.ts"
import { SessionEvent } from "./event.ts"
import type { Message, Origin } from "./message.ts"
import { Session } from "./session.ts"

/**
 * A mutation fails with a session error (see `@opencode-ai/plugin`'s `SessionError`); `ForbiddenError` only
 * where a plugin's rights are checked (the `E` of the operations). A full inbox concerns admissions only.
 */
export type MutationError = Exclude<SessionError, ForbiddenError | QueueFullError>

/** The host-rendered text that stands in for a retracted message. Never plugin-supplied. */
export const placeholderFor = (message: Message) =>
  message.type === "synthetic" ? "[A notice was retracted.]" : "[A message was retracted.]"

/**
 * The transcript mutation contract: correct a text part, retract a user or synthetic message, remove a
 * tool or reasoning part of a completed assistant message. Each is one replayable event admitted between
 * turns only (see `admission.ts`); ids, roles and seqs never change. Each returns the updated message.
 */
/**
 * Decides, inside the admission transaction, whether the caller may change this message; returns the
 * refusal or nothing. HTTP callers are the user and pass none; plugins pass their transcript rights.
 */
export type Authorize<E> = (message: Message) => E | undefined

export interface MutationShape {
  correct<E = never>(input: {
    readonly sessionID: string
    readonly messageID: string
    readonly partID: string
    readonly text: string
    readonly by: Origin
    readonly authorize?: Authorize<E>
  }): Effect.Effect<Message, MutationError | E>
  retract<E = never>(input: {
    readonly sessionID: string
    readonly messageID: string
    readonly by: Origin
    readonly authorize?: Authorize<E>
  }): Effect.Effect<Message, MutationError | E>
  removePart(input: {
    readonly sessionID: string
    readonly messageID: string
    readonly partID: string
    readonly by: Origin
  }): Effect.Effect<Message, MutationError>
}

export class Mutation extends Context.Service<Mutation, MutationShape>()("@opencode-ai/core/session/Mutation") {
  static readonly layer = Layer.effect(
    Mutation,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const reads = session.sync

      /** The admission decision for a mutation of one delivered message (runs inside the transaction). */
      const decide = <E = never>(
        sessionID: string,
        messageID: string,
        build: (message: Message) => Decision<MutationError>,
        authorize?: Authorize<E>,
      ): Decision<MutationError | E> =>
        admitMutation<MutationError | E>(reads, sessionID, () => {
          const message = reads.message(sessionID, messageID)
          if (!message) return { reject: new MessageNotFoundError({ sessionID, messageID }) }
          const refused = authorize?.(message)
          return refused !== undefined ? { reject: refused } : build(message)
        })

      /** Commits a decision; the result is read back inside the same fiber step, right after commit. */
      const commit = <E>(sessionID: string, messageID: string, decision: () => Decision<E>) =>
        bus.transact(sessionID, decision).pipe(
          Effect.catchTag("Bus.InvalidEventError", Effect.die),
          Effect.map(() => reads.message(sessionID, messageID)!),
        )

      const apply = <E = never>(
        sessionID: string,
        messageID: string,
        build: (message: Message) => Decision<MutationError>,
        authorize?: Authorize<E>,
      ) => commit(sessionID, messageID, () => decide(sessionID, messageID, build, authorize))

      const invalid = (message: Message, reason: string, partID?: string) => ({
        reject: new InvalidTargetError({
          sessionID: message.sessionID,
          messageID: message.id,
          ...(partID ? { partID } : {}),
          reason,
        }),
      })

      const completed = (message: Message) => message.type !== "assistant" || message.time.completed !== undefined

      return Mutation.of({
        correct: ({ sessionID, messageID, partID, text, by, authorize }) =>
          text.length === 0
            ? Effect.fail(
                new InvalidInputError({
                  message: "a correction needs text; retract the message or remove the part instead",
                  field: "text",
                }),
              )
            : apply(
                sessionID,
                messageID,
                (message) => {
                  if (message.retracted) return invalid(message, "the message is retracted", partID)
                  if (!completed(message)) return invalid(message, "the assistant message is not completed", partID)
                  const part = message.parts.find((p) => p.id === partID)
                  if (!part) return { reject: new PartNotFoundError({ sessionID, messageID, partID }) }
                  if (part.type !== "text")
                    return invalid(message, `only text parts can be corrected, not ${part.type} parts`, partID)
                  return [draft(SessionEvent.MessageCorrected, { messageID, partID, text, by })]
                },
                authorize,
              ),
        retract: ({ sessionID, messageID, by, authorize }) =>
          commit(sessionID, messageID, () => {
            // Input queued behind the running turn: retracting it cancels its delivery (it never reaches
            // the model), turn or no turn. Decided in the same transaction as delivery at a turn boundary.
            const waiting = reads.row(sessionID) ? reads.queued(sessionID, messageID) : undefined
            if (waiting) {
              const message = { ...waiting, seq: 0 } as Message
              const refused = authorize?.(message)
              if (refused !== undefined) return { reject: refused }
              return [draft(SessionEvent.MessageRetracted, { messageID, placeholder: placeholderFor(message), by })]
            }
            // A retry after success changes nothing, so it answers with the message even while a turn runs.
            const done = reads.row(sessionID) ? reads.message(sessionID, messageID) : undefined
            if (done?.retracted) {
              const refused = authorize?.(done)
              return refused !== undefined ? { reject: refused } : []
            }
            return decide(
              sessionID,
              messageID,
              (message) => {
                if (message.type === "assistant") {
                  return invalid(
                    message,
                    "assistant messages cannot be retracted; remove their tool or reasoning parts instead",
                  )
                }
                return [draft(SessionEvent.MessageRetracted, { messageID, placeholder: placeholderFor(message), by })]
              },
              authorize,
            )
          }),
        removePart: ({ sessionID, messageID, partID, by }) =>
          commit(sessionID, messageID, () => {
            // A retry after success changes nothing, so it answers with the message even while a turn runs.
            const done = reads.row(sessionID) ? reads.message(sessionID, messageID) : undefined
            if (done?.type === "assistant" && done.removedParts?.includes(partID)) return []
            return decide(sessionID, messageID, (message) => {
              if (message.type !== "assistant")
                return invalid(message, "parts can only be removed from assistant messages", partID)
              if (!completed(message)) return invalid(message, "the assistant message is not completed", partID)
              const part = message.parts.find((p) => p.id === partID)
              if (!part) return { reject: new PartNotFoundError({ sessionID, messageID, partID }) }
              if (part.type === "text")
                return invalid(message, "text parts cannot be removed; correct them instead", partID)
              return [draft(SessionEvent.PartRemoved, { messageID, partID, by })]
            })
          }),
      })
    }),
  )
}
