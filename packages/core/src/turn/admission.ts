import type { Decision } from "../bus/bus.ts"
import { draft, type Draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { BusyError, InvalidInputError, QueueFullError, SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent, type TurnReason } from "../domain/event.ts"
import type { ErrorInfo, NoticeData, PromptData } from "../domain/message.ts"
import type { SessionShape } from "../session/session.ts"

/**
 * Admission: the one place that decides, inside the commit transaction, whether a session may start a
 * turn or take a mutation. Both decisions read the durable execution claim (`session_execution`) and
 * write it (turn start) or require it absent (mutation) in the same IMMEDIATE transaction, so a mutation
 * can never commit while a turn holds the session, and a turn can never start under a half-applied
 * mutation. The functions here are synchronous and run only inside `Bus.transact`.
 */

export type { TurnReason }

/** A turn this process has just been granted by a committed decision. */
export interface Grant {
  readonly turnID: string
  readonly reason: TurnReason
  /** The message whose admission started the turn, if one did. */
  readonly messageID?: string
}

type Reads = SessionShape["sync"]

/** A prompt or notice to admit: what its delivery commits, and whether it wakes the session. */
export type Input =
  | { readonly kind: "prompt"; readonly data: PromptData; readonly wake: boolean }
  | { readonly kind: "synthetic"; readonly data: NoticeData; readonly wake: boolean }

const reasonFor = (input: Input): TurnReason => (input.kind === "prompt" ? "prompt" : "synthetic")

/** The draft that puts input into the transcript. */
export const deliver = (input: Input): Draft =>
  input.kind === "prompt" ? draft(SessionEvent.PromptAdmitted, input.data) : draft(SessionEvent.Synthetic, input.data)

/** The draft that parks input in the inbox behind the running turn. */
const park = (input: Input): Draft =>
  input.kind === "prompt"
    ? draft(SessionEvent.Prompted, { ...input.data, resume: input.wake })
    : draft(SessionEvent.SyntheticQueued, { ...input.data, resume: input.wake })

/** How many inputs a session's inbox holds by default (`session.queueLimit`). */
export const DEFAULT_QUEUE_LIMIT = 100

/**
 * Admits a prompt or notice. Idle: it enters the transcript and, when it wakes the session, a turn starts
 * in the same commit. Claimed: it waits in the inbox for the running turn's boundary (or, for a `steer`
 * prompt, the running turn's next step), unless `queueLimit` inputs already wait there; then it is refused
 * and nothing is stored. The count is read in the commit transaction, so concurrent admissions cannot
 * overshoot the bound. An id some message or waiting input (of any session) already has is refused the
 * same way (a client may choose the id): ids are unique across the database.
 */
export const admitInput = (
  reads: Reads,
  sessionID: string,
  input: Input,
  queueLimit: number = DEFAULT_QUEUE_LIMIT,
): { decision: Decision<SessionNotFoundError | QueueFullError | InvalidInputError>; grant?: Grant } => {
  if (!reads.row(sessionID)) return { decision: { reject: new SessionNotFoundError({ sessionID }) } }
  if (reads.messageIDTaken(input.data.messageID))
    return {
      decision: {
        reject: new InvalidInputError({
          message: `id ${input.data.messageID} is already used by another message`,
          field: "id",
        }),
      },
    }
  if (reads.claimed(sessionID)) {
    if (reads.queuedCount(sessionID) >= queueLimit)
      return { decision: { reject: new QueueFullError({ sessionID, limit: queueLimit }) } }
    return { decision: [park(input)] }
  }
  const admitted = deliver(input)
  if (!input.wake) return { decision: [admitted] }
  const grant = { turnID: ascending("trn"), reason: reasonFor(input), messageID: input.data.messageID }
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
    drafts.push(deliver(item))
    if (item.wake && !options.drain) {
      const grant = { turnID: ascending("trn"), reason: reasonFor(item), messageID: item.data.messageID }
      drafts.push(draft(SessionEvent.TurnStarted, { turnID: grant.turnID, reason: grant.reason }))
      return { decision: drafts, grant }
    }
  }
  return { decision: drafts }
}

/**
 * A step boundary inside a running turn: prompts queued with `delivery: "steer"` join the transcript now,
 * so the turn's next request answers them. Returns the drafts (none when nothing steers).
 */
export const steer = (reads: Reads, sessionID: string): Array<Draft> =>
  reads
    .inbox(sessionID)
    .filter((item) => item.kind === "prompt" && item.data.delivery === "steer")
    .map(deliver)

/** The error a step left open by a killed process is closed with. */
export const CUT_OFF: ErrorInfo = {
  type: "unknown",
  name: "Interrupted",
  message: "the server stopped while this answer was streaming",
}

/**
 * Closes what a killed process left open in a claimed turn: assistant messages that never completed get
 * their unfinished tool calls failed and are closed as interrupted, so no message dangles and the partial
 * answer stays, marked.
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
      ...message.content.flatMap((item) =>
        item.type === "tool" && (item.state.status === "running" || item.state.status === "pending")
          ? [
              draft(SessionEvent.ToolFailed, {
                assistantMessageID: message.id,
                callID: item.callID,
                error: CUT_OFF,
                provider: { executed: false },
              }),
            ]
          : [],
      ),
      draft(SessionEvent.StepFailed, { assistantMessageID: message.id, error: CUT_OFF, finish: "interrupted" }),
    ])

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
    /** The restart notice, delivered before the turn continues. */
    readonly notice?: Input
    /** Pending permission asks: their messages stay open on resume; given up, the asks are rejected. */
    readonly permissions?: { readonly messages: ReadonlySet<string>; readonly reject: ReadonlyArray<Draft> }
  },
): { decision: Decision<SessionNotFoundError | BusyError>; grant?: Grant; exhausted?: boolean } => {
  if (!reads.row(sessionID)) return { decision: { reject: new SessionNotFoundError({ sessionID }) } }
  const claim = reads.claimed(sessionID)
  if (options.running) return { decision: { reject: new BusyError({ sessionID }) } }
  const notice = options.notice ? [deliver(options.notice)] : []
  const messageID = options.notice?.data.messageID
  if (!claim) {
    const grant = { turnID: ascending("trn"), reason: "resume" as const, ...(messageID ? { messageID } : {}) }
    return {
      decision: [...notice, draft(SessionEvent.TurnStarted, { turnID: grant.turnID, reason: grant.reason })],
      grant,
    }
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
        error: {
          type: "unknown",
          name: "Session.ResumeExhaustedError",
          message: `gave up after ${options.cap} resume attempts`,
        },
      },
      { drain: true },
    )
    return { decision: [...settled, ...(ended.decision as ReadonlyArray<Draft>)], exhausted: true }
  }
  const grant = { turnID: claim.turn_id, reason: "resume" as const, ...(messageID ? { messageID } : {}) }
  return {
    decision: [...settled, ...notice, draft(SessionEvent.TurnResumed, { turnID: claim.turn_id, attempt })],
    grant,
  }
}
