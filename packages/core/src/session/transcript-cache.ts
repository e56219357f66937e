import { type BusEvent, isDurable } from "../bus/bus.ts"
import type { Envelope } from "../bus/event.ts"
import type { Database } from "../storage/database.ts"
import { SessionEvent as E } from "../domain/event.ts"
import type { Message } from "../domain/message.ts"

/**
 * The parsed transcripts of the sessions read most recently, kept current from the bus; readers must not
 * change the messages it hands out. (docs/architecture.md, "The transcript cache")
 */
export interface TranscriptCache {
  /** Every message of a session in seq order (empty when the session does not exist). */
  read(sessionID: string): ReadonlyArray<Message>
  /** Takes note of a committed event (a bus listener). */
  observe(event: BusEvent): void
}

/** How many sessions' transcripts are kept; the least recently read goes first. */
export const TRANSCRIPT_CACHE_SESSIONS = 16

interface Entry {
  /** The session seq the entry reflects, dirty messages included. */
  seq: number
  readonly messages: Array<Message>
  /** Position of each message in `messages`. */
  readonly index: Map<string, number>
  /** Messages written since they were read: re-read before the next answer. */
  readonly dirty: Set<string>
}

/** The messages an event writes, or `"all"` when the entry cannot follow it. */
const written = (event: Envelope): ReadonlyArray<string> | "all" => {
  const data = event.data as {
    readonly messageID?: string
    readonly assistantMessageID?: string
    readonly messages?: ReadonlyArray<{ readonly messageID: string }>
  }
  switch (event.type) {
    case E.Created.type:
    case E.Renamed.type:
    case E.Prompted.type:
    case E.SyntheticQueued.type:
    case E.TurnStarted.type:
    case E.TurnResumed.type:
    case E.TurnEnded.type:
    case E.Retried.type:
    case E.CompactionStarted.type:
    case E.Erased.type:
    case E.PermissionAsked.type:
    case E.PermissionReplied.type:
      return []
    case E.PromptAdmitted.type:
    case E.Synthetic.type:
    case E.AgentSwitched.type:
    case E.ModelSwitched.type:
    case E.CompactionEnded.type:
      return [data.messageID!]
    case E.StepStarted.type:
    case E.StepEnded.type:
    case E.StepFailed.type:
    case E.TextStarted.type:
    case E.TextAppended.type:
    case E.TextEnded.type:
    case E.ReasoningStarted.type:
    case E.ReasoningAppended.type:
    case E.ReasoningEnded.type:
    case E.ToolInputStarted.type:
    case E.ToolInputEnded.type:
    case E.ToolCalled.type:
    case E.ToolProgress.type:
    case E.ToolSuccess.type:
    case E.ToolFailed.type:
    case E.ToolPruned.type:
    case E.ReasoningRemoved.type:
      return [data.assistantMessageID!]
    case E.Pruned.type:
      return (data.messages ?? []).map((entry) => entry.messageID)
    default:
      // A correction or retraction may also restate a compaction, a retraction may deliver from the inbox,
      // `session.next.deleted`, and any event type this cache does not know: rebuilt on the next read.
      return "all"
  }
}

export const makeTranscriptCache = (
  client: Database["Service"]["client"],
  capacity: number = TRANSCRIPT_CACHE_SESSIONS,
): TranscriptCache => {
  const entries = new Map<string, Entry>()
  const readSeq = client.query<{ seq: number }, [string]>("SELECT seq FROM session WHERE id = ?")
  const readAll = client.query<{ data: string }, [string]>(
    "SELECT data FROM session_message WHERE session_id = ? ORDER BY seq",
  )
  const readOne = client.query<{ data: string }, [string, string]>(
    "SELECT data FROM session_message WHERE id = ? AND session_id = ?",
  )
  const parse = (data: string) => JSON.parse(data) as Message

  const build = (sessionID: string, seq: number): Entry => {
    const messages = readAll.all(sessionID).map((row) => parse(row.data))
    return { seq, messages, index: new Map(messages.map((message, i) => [message.id, i])), dirty: new Set() }
  }

  /** Re-reads the dirty messages; false when the entry cannot be brought up to date that way. */
  const refresh = (sessionID: string, entry: Entry): boolean => {
    for (const messageID of entry.dirty) {
      const row = readOne.get(messageID, sessionID)
      const at = entry.index.get(messageID)
      if (!row) {
        // Written and gone (queued input that was never delivered leaves no row): only a known one matters.
        if (at !== undefined) return false
        continue
      }
      const message = parse(row.data)
      if (at !== undefined) {
        entry.messages[at] = message
        continue
      }
      // A new message takes the seq of the event that admitted it, so it sorts after every earlier one.
      const last = entry.messages.at(-1)
      if (last && last.seq > message.seq) return false
      entry.index.set(messageID, entry.messages.length)
      entry.messages.push(message)
    }
    entry.dirty.clear()
    return true
  }

  return {
    read(sessionID) {
      const seq = readSeq.get(sessionID)?.seq
      if (seq === undefined) {
        entries.delete(sessionID)
        return []
      }
      let entry = entries.get(sessionID)
      entries.delete(sessionID)
      if (!entry || entry.seq !== seq || !refresh(sessionID, entry)) entry = build(sessionID, seq)
      entries.set(sessionID, entry)
      if (entries.size > capacity) entries.delete(entries.keys().next().value!)
      return entry.messages.slice()
    },
    observe(event) {
      if (!isDurable(event)) return
      const entry = entries.get(event.sessionID)
      // Already part of the entry (it was built after this commit).
      if (!entry || event.seq <= entry.seq) return
      const ids = written(event)
      if (event.seq !== entry.seq + 1 || ids === "all") {
        entries.delete(event.sessionID)
        return
      }
      for (const id of ids) entry.dirty.add(id)
      entry.seq = event.seq
    },
  }
}
