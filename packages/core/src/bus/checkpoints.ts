import type { SqliteClient as SQLite } from "../platform/sqlite.ts"
import type { Envelope } from "./event.ts"

/**
 * Streaming checkpoints leave the journal when their part ends: the `*.ended` event holds the whole text.
 * (docs/architecture.md, "Streaming checkpoints leave the journal when their part ends")
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
