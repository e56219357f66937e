import type { SqliteClient as SQLite } from "../platform/sqlite.ts"
import type { Envelope } from "./event.ts"

/**
 * Streaming checkpoints leave the journal when their part ends.
 *
 * While a text or reasoning item streams, the runner commits what was appended since the previous
 * checkpoint (`*.appended`) about once a second, so a crash keeps the text: those rows are the journal's
 * record of the open part, and replay of a crash image rebuilds it from them. Once the part ends, its
 * `*.ended` event holds the whole text and the checkpoints say nothing replay needs: in the same
 * transaction that journals the end, the part's checkpoint rows are deleted. The journal of a streamed
 * answer is then its start and its end: the answer's size plus a fixed overhead per part, however long it
 * streamed (each checkpoint row costs ~250 bytes of ids and framing, which a slow stream pays every second).
 *
 * The seqs of the deleted checkpoints are gaps in the session's durable log (`Bus.log`); live subscribers
 * received them when they were committed.
 *
 * Where a part's checkpoints start is remembered in memory (seq of the first journaled checkpoint), so the
 * delete is a range scan of the `(aggregate_id, seq)` index. The delete also matches the type and the
 * part id, so a remembered seq that a rolled-back transaction gave away again deletes nothing else. A part
 * cut off by a crash never ends (the resumed turn writes a new message), so its checkpoints stay: they are
 * the only record of its text.
 */
const ENDS: Record<string, { readonly appended: string; readonly id: string }> = {
  "session.next.text.ended": { appended: "session.next.text.appended", id: "textID" },
  "session.next.reasoning.ended": { appended: "session.next.reasoning.appended", id: "reasoningID" },
}
const APPENDED: Record<string, string> = {
  "session.next.text.appended": "textID",
  "session.next.reasoning.appended": "reasoningID",
}

/** Tracks open parts' checkpoints and drops them from the journal when the part ends. */
export const checkpointCompactor = (client: SQLite) => {
  const drop = client.query<unknown, [string, number, number, string, string, string]>(
    "DELETE FROM event WHERE aggregate_id = ? AND seq >= ? AND seq < ? AND type = ? AND json_extract(data, ?) = ?",
  )
  /** Per session: part id -> seq of its first journaled checkpoint. */
  const open = new Map<string, Map<string, number>>()

  return {
    /** Called after `envelope` was appended to the journal, inside its transaction. */
    journaled(envelope: Envelope) {
      const appendedID = APPENDED[envelope.type]
      if (appendedID) {
        const partID = (envelope.data as Record<string, string>)[appendedID]!
        let parts = open.get(envelope.sessionID)
        if (!parts) open.set(envelope.sessionID, (parts = new Map()))
        if (!parts.has(partID)) parts.set(partID, envelope.seq)
        return
      }
      const end = ENDS[envelope.type]
      if (end) {
        const partID = (envelope.data as Record<string, string>)[end.id]!
        const parts = open.get(envelope.sessionID)
        const from = parts?.get(partID)
        if (from === undefined) return
        drop.run(envelope.sessionID, from, envelope.seq, end.appended, `$.${end.id}`, partID)
        parts!.delete(partID)
        if (parts!.size === 0) open.delete(envelope.sessionID)
        return
      }
      // A turn's end closes every part it streamed; one still remembered was cut off (never ended).
      if (envelope.type === "session.next.turn.ended") open.delete(envelope.sessionID)
    },
  }
}
