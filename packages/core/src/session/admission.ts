import type { Decision } from "../bus/bus.ts"
import { draft, type Draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { BusyError, QueueFullError, SessionNotFoundError } from "./error.ts"
import { SessionEvent } from "./event.ts"
import type { InputMessage } from "./message.ts"
import type { SessionShape } from "./session.ts"

/**
 * Admission: the one place that decides, inside the commit transaction, whether a session may start a
 * turn or take a mutation. Both decisions read the durable execution claim (`session_execution`) and
 * write it (turn start) or require it absent (mutation) in the same IMMEDIATE transaction, so a mutation
 * can never commit while a turn holds the session, and a turn can never start under a half-applied
 * mutation. The functions here are synchronous and run only inside `Bus.transact`.
 */

export type TurnReason = typeof SessionEvent.TurnReason.Type

/** A turn this process has just been granted by a committed decision. */
export interface Grant {
  readonly turnID: string
  readonly reason: TurnReason
  /** The message whose admission started the turn, if one did. */
  readonly messageID?: string
}

type Reads = SessionShape["sync"]

const reasonFor = (message: InputMessage): TurnReason => (message.type === "user" ? "prompt" : "synthetic")

/** How many inputs a session's inbox holds by default (`session.queueLimit`). */
export const DEFAULT_QUEUE_LIMIT = 100

/**
 * Admits a prompt or notice. Idle: it enters the transcript and, when it wakes the session, a turn starts
 * in the same commit. Claimed: it waits in the inbox for the running turn's boundary, unless `queueLimit`
 * inputs already wait there; then it is refused and nothing is stored. The count is read in the commit
 * transaction, so concurrent admissions cannot overshoot the bound.
 */
export const admitInput = (
  reads: Reads,
  sessionID: string,
  message: InputMessage,
  wake: boolean,
  queueLimit: number = DEFAULT_QUEUE_LIMIT,
): { decision: Decision<SessionNotFoundError | QueueFullError>; grant?: Grant } => {
  if (!reads.row(sessionID)) return { decision: { reject: new SessionNotFoundError({ sessionID }) } }
  if (reads.claimed(sessionID)) {
    if (reads.queuedCount(sessionID) >= queueLimit) {
      return { decision: { reject: new QueueFullError({ sessionID, limit: queueLimit }) } }
    }
    return { decision: [draft(SessionEvent.InputQueued, { message, wake })] }
  }
  const admitted = draft(SessionEvent.MessageAdmitted, { message })
  if (!wake) return { decision: [admitted] }
  const grant = { turnID: ascending("trn"), reason: reasonFor(message), messageID: message.id }
  return {
    decision: [admitted, draft(SessionEvent.TurnStarted, { turnID: grant.turnID, reason: grant.reason })],
    grant,
  }
}

/**
 * Admits a mutation: `build` runs only when the session exists and no claim is held, and returns the
 * drafts or its own rejection (not found, invalid target).
 */
export const admitMutation = <E>(
  reads: Reads,
  sessionID: string,
  build: () => Decision<E>,
): Decision<E | SessionNotFoundError | BusyError> => {
  if (!reads.row(sessionID)) return { reject: new SessionNotFoundError({ sessionID }) }
  if (reads.claimed(sessionID)) return { reject: new BusyError({ sessionID }) }
  return build()
}

/**
 * A turn boundary: the turn releases its claim; queued input is delivered into the transcript in order up
 * to and including the first item that wakes the session, which starts the next turn in the same commit.
 * With `drain`, everything queued is delivered and no turn starts (interrupt, failure to continue).
 */
export const boundary = (
  reads: Reads,
  sessionID: string,
  ended: typeof SessionEvent.TurnEnded.data.Type,
  options: { readonly drain: boolean },
): { decision: Decision<never>; grant?: Grant } => {
  const drafts: Array<Draft> = [draft(SessionEvent.TurnEnded, ended)]
  // One indexed read per delivered item, never the whole queue: draining N items costs O(N).
  for (let item = reads.nextQueued(sessionID, 0); item; item = reads.nextQueued(sessionID, item.seq)) {
    drafts.push(draft(SessionEvent.MessageAdmitted, { message: item.message }))
    if (item.wake && !options.drain) {
      const grant = { turnID: ascending("trn"), reason: reasonFor(item.message), messageID: item.message.id }
      drafts.push(draft(SessionEvent.TurnStarted, { turnID: grant.turnID, reason: grant.reason }))
      return { decision: drafts, grant }
    }
  }
  return { decision: drafts }
}

/**
 * Closes what a killed process left open in a claimed turn: assistant messages that never completed get
 * their running tool calls failed and are completed as interrupted, so no message dangles and the
 * partial answer stays, marked.
 */
export const settleCutOff = (
  reads: Reads,
  sessionID: string,
  turnID: string,
  /** Messages left open: a call in them waits for permission and is finished when the turn resumes. */
  keep: ReadonlySet<string> = new Set(),
): Array<Draft> =>
  reads
    .incomplete(sessionID, turnID)
    .filter((message) => !keep.has(message.id))
    .flatMap((message) => [
      ...message.parts.flatMap((part) =>
        part.type === "tool" && part.state === "running"
          ? [
              draft(SessionEvent.PartUpdated, {
                messageID: message.id,
                part: { ...part, state: "error" as const, error: CUT_OFF },
              }),
            ]
          : [],
      ),
      draft(SessionEvent.AssistantCompleted, {
        messageID: message.id,
        finish: "interrupted",
        error: { name: "Interrupted", message: CUT_OFF },
      }),
    ])

const CUT_OFF = "the server stopped while this answer was streaming"

/**
 * Continues a session without adding a message. Idle: a new turn starts (`resume`). Claimed but not
 * running here (suspended by a restart): the same turn resumes, counting the attempt durably; past `cap`
 * attempts the turn fails and the claim is released instead. Running here: busy.
 */
export const admitResume = (
  reads: Reads,
  sessionID: string,
  options: {
    readonly running: boolean
    readonly cap: number
    readonly notice?: InputMessage
    /** Pending permission asks: their messages stay open on resume; given up, the asks are rejected. */
    readonly permissions?: { readonly messages: ReadonlySet<string>; readonly reject: ReadonlyArray<Draft> }
  },
): { decision: Decision<SessionNotFoundError | BusyError>; grant?: Grant; exhausted?: boolean } => {
  if (!reads.row(sessionID)) return { decision: { reject: new SessionNotFoundError({ sessionID }) } }
  const claim = reads.claimed(sessionID)
  if (options.running) return { decision: { reject: new BusyError({ sessionID }) } }
  const notice = options.notice ? [draft(SessionEvent.MessageAdmitted, { message: options.notice })] : []
  if (!claim) {
    const grant = {
      turnID: ascending("trn"),
      reason: "resume" as const,
      ...(options.notice ? { messageID: options.notice.id } : {}),
    }
    return { decision: [...notice, draft(SessionEvent.TurnStarted, grant)], grant }
  }
  const attempt = claim.attempts + 1
  const exhausted = attempt > options.cap
  const settled = [
    ...(exhausted ? (options.permissions?.reject ?? []) : []),
    ...settleCutOff(reads, sessionID, claim.turn_id, exhausted ? undefined : options.permissions?.messages),
  ]
  if (exhausted) {
    const ended = boundary(
      reads,
      sessionID,
      {
        turnID: claim.turn_id,
        outcome: "failed",
        error: { name: "Session.ResumeExhaustedError", message: `gave up after ${options.cap} resume attempts` },
      },
      { drain: true },
    )
    return { decision: [...settled, ...(ended.decision as ReadonlyArray<Draft>)], exhausted: true }
  }
  const grant = {
    turnID: claim.turn_id,
    reason: "resume" as const,
    ...(options.notice ? { messageID: options.notice.id } : {}),
  }
  return {
    decision: [...settled, ...notice, draft(SessionEvent.TurnResumed, { turnID: claim.turn_id, attempt })],
    grant,
  }
}
