import { Context, Effect, Layer } from "effect"
import { Bus, type Decision } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { admitMutation } from "../turn/admission.ts"
import {
  type ForbiddenError,
  InvalidInputError,
  type QueueFullError,
  InvalidTargetError,
  ItemNotFoundError,
  MessageNotFoundError,
  type SessionError,
} from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import { type Message, type Origin, queuedMessage } from "../domain/message.ts"
import { Session } from "../session/session.ts"

/**
 * A mutation fails with a session error (see `@opencode-ai/schema`'s `SessionError`); `ForbiddenError` only
 * where a plugin's rights are checked (the `E` of the operations). A full inbox concerns admissions only.
 */
export type MutationError = Exclude<SessionError, ForbiddenError | QueueFullError>

/** The host-rendered text that stands in for a retracted message. Never plugin-supplied. */
export const placeholderFor = (message: Message) =>
  message.type === "synthetic"
    ? "[A notice was retracted.]"
    : message.type === "compaction"
      ? "[A summary was retracted.]"
      : "[A message was retracted.]"

/**
 * Decides, inside the admission transaction, whether the caller may change this message; returns the
 * refusal or nothing. HTTP callers are the user and pass none; plugins pass their transcript rights.
 */
export type Authorize<E> = (message: Message) => E | undefined

/**
 * The transcript mutation contract: correct a text (a user or synthetic message's, a compaction's summary,
 * or an assistant text item's), retract a user or synthetic message, remove a tool or reasoning item of a
 * completed assistant message. Each is one replayable event admitted between turns only (see
 * `admission.ts`); ids, roles and seqs never change. Each returns the updated message.
 */
export interface MutationShape {
  correct<E = never>(input: {
    readonly sessionID: string
    readonly messageID: string
    /** The assistant text item to correct; omitted for a user or synthetic message's text or a summary. */
    readonly itemID?: string
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
  /** Prunes a tool call (its input and output leave; the item stays, marked) or removes a reasoning item. */
  removeItem(input: {
    readonly sessionID: string
    readonly messageID: string
    readonly itemID: string
    readonly by: Origin
    /**
     * The running tool call making the change (a plugin tool's `ctx.removeItem`): while that call is live
     * in this session's turn, the change is admitted although the turn holds the claim, since the turn is
     * waiting on the call and reads the transcript again only after it.
     */
    readonly during?: { readonly messageID: string; readonly itemID: string }
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
        bus.transact(sessionID, decision).pipe(Effect.map(() => reads.message(sessionID, messageID)!))

      const apply = <E = never>(
        sessionID: string,
        messageID: string,
        build: (message: Message) => Decision<MutationError>,
        authorize?: Authorize<E>,
      ) => commit(sessionID, messageID, () => decide(sessionID, messageID, build, authorize))

      const invalid = (message: Message, reason: string, itemID?: string) => ({
        reject: new InvalidTargetError({
          sessionID: message.sessionID,
          messageID: message.id,
          ...(itemID ? { itemID } : {}),
          reason,
        }),
      })

      const completed = (message: Message) => message.type !== "assistant" || message.time.completed !== undefined

      /** Whether the item was already taken out (a retry of a removal answers with the message). */
      const removed = (message: Message | undefined, itemID: string) =>
        message?.type === "assistant" &&
        (message.removed?.includes(itemID) === true ||
          message.content.some((item) => item.id === itemID && item.type === "tool" && item.time.pruned !== undefined))

      const implementation = Mutation.of({
        correct: Effect.fn("Mutation.correct")(({ sessionID, messageID, itemID, text, by, authorize }) =>
          text.length === 0
            ? Effect.fail(
                new InvalidInputError({
                  message: "a correction needs text; retract the message or remove the item instead",
                  field: "text",
                }),
              )
            : apply(
                sessionID,
                messageID,
                (message) => {
                  if (message.retracted) return invalid(message, "the message is retracted", itemID)
                  // A compaction's own text is its summary: correcting it fixes what later requests are sent.
                  if (message.type === "user" || message.type === "synthetic" || message.type === "compaction") {
                    if (itemID !== undefined)
                      return invalid(
                        message,
                        `${message.type} messages have no items: omit itemID to correct their text`,
                        itemID,
                      )
                    return [draft(SessionEvent.TextCorrected, { messageID, text, by })]
                  }
                  if (message.type !== "assistant")
                    return invalid(message, `${message.type} messages cannot be corrected`)
                  if (itemID === undefined)
                    return invalid(message, "name the text item of the assistant message to correct (itemID)")
                  if (!completed(message)) return invalid(message, "the assistant message is not completed", itemID)
                  const item = message.content.find((i) => i.id === itemID)
                  if (!item) return { reject: new ItemNotFoundError({ sessionID, messageID, itemID }) }
                  if (item.type !== "text")
                    return invalid(message, `only text items can be corrected, not ${item.type} items`, itemID)
                  return [draft(SessionEvent.TextCorrected, { messageID, itemID, text, by })]
                },
                authorize,
              ),
        ),
        retract: Effect.fn("Mutation.retract")(({ sessionID, messageID, by, authorize }) =>
          commit(sessionID, messageID, () => {
            // Input queued behind the running turn: retracting it cancels its delivery (it never reaches
            // the model), turn or no turn. Decided in the same transaction as delivery at a turn boundary.
            const waiting = reads.row(sessionID) ? reads.queued(sessionID, messageID) : undefined
            if (waiting) {
              const message = queuedMessage(sessionID, waiting)
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
                if (message.type !== "user" && message.type !== "synthetic" && message.type !== "compaction") {
                  return invalid(
                    message,
                    message.type === "assistant"
                      ? "assistant messages cannot be retracted; remove their tool or reasoning items instead"
                      : `${message.type} messages cannot be retracted`,
                  )
                }
                return [draft(SessionEvent.MessageRetracted, { messageID, placeholder: placeholderFor(message), by })]
              },
              authorize,
            )
          }),
        ),
        removeItem: Effect.fn("Mutation.removeItem")(({ sessionID, messageID, itemID, by, during }) =>
          commit(sessionID, messageID, () => {
            // A retry after success changes nothing, so it answers with the message even while a turn runs.
            if (reads.row(sessionID) && removed(reads.message(sessionID, messageID), itemID)) return []
            const caller = during && reads.message(sessionID, during.messageID)
            const live =
              caller?.type === "assistant" &&
              caller.time.completed === undefined &&
              caller.content.some((i) => i.id === during!.itemID && i.type === "tool" && i.state.status === "running")
            const admit = live
              ? (build: (message: Message) => Decision<MutationError>): Decision<MutationError> => {
                  const message = reads.message(sessionID, messageID)
                  return message ? build(message) : { reject: new MessageNotFoundError({ sessionID, messageID }) }
                }
              : (build: (message: Message) => Decision<MutationError>) => decide(sessionID, messageID, build)
            return admit((message) => {
              if (message.type !== "assistant")
                return invalid(message, "items can only be removed from assistant messages", itemID)
              if (!completed(message)) return invalid(message, "the assistant message is not completed", itemID)
              const item = message.content.find((i) => i.id === itemID)
              if (!item) return { reject: new ItemNotFoundError({ sessionID, messageID, itemID }) }
              if (item.type === "text")
                return invalid(message, "text items cannot be removed; correct them instead", itemID)
              return item.type === "tool"
                ? [draft(SessionEvent.ToolPruned, { assistantMessageID: messageID, callID: item.callID, itemID, by })]
                : [draft(SessionEvent.ReasoningRemoved, { assistantMessageID: messageID, reasoningID: itemID, by })]
            })
          }),
        ),
      })
      return implementation
    }),
  )
}
