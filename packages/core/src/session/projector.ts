import { Effect, Layer } from "effect"
import type { Envelope } from "../bus/event.ts"
import { Projectors } from "../bus/projector.ts"
import { Database } from "../storage/database.ts"
import { SessionEvent as E } from "./event.ts"
import type { AssistantMessage, InputMessage, Message, Part } from "./message.ts"

type DataOf<D extends { data: { Type: unknown } }> = D["data"]["Type"]

/**
 * Applies session events to the projection tables. Pure in the event: it reads only the rows it updates
 * and takes time and seq from the envelope, so the journal replayed into an empty database gives the same
 * rows, byte for byte.
 */
export const makeSessionProjector = (client: Database["Service"]["client"]) => {
  const insertSession = client.query(
    "INSERT INTO session (id, title, directory, agent, model, seq, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  )
  const touchSession = client.query<unknown, [number, number, string]>(
    "UPDATE session SET seq = ?, time_updated = ? WHERE id = ?",
  )
  const renameSession = client.query<unknown, [string, string]>("UPDATE session SET title = ? WHERE id = ?")
  const deleteSession = client.query<unknown, [string]>("DELETE FROM session WHERE id = ?")
  const insertInbox = client.query<unknown, [string, string, number, string]>(
    "INSERT INTO session_inbox (message_id, session_id, seq, data) VALUES (?, ?, ?, ?)",
  )
  const deleteInbox = client.query<unknown, [string, string]>(
    "DELETE FROM session_inbox WHERE message_id = ? AND session_id = ?",
  )
  const readInbox = client.query<{ data: string }, [string, string]>(
    "SELECT data FROM session_inbox WHERE message_id = ? AND session_id = ?",
  )
  const insertMessage = client.query<unknown, [string, string, number, string, string]>(
    "INSERT INTO session_message (id, session_id, seq, type, data) VALUES (?, ?, ?, ?, ?)",
  )
  const readMessage = client.query<{ data: string }, [string, string]>(
    "SELECT data FROM session_message WHERE id = ? AND session_id = ?",
  )
  const writeMessage = client.query<unknown, [string, string, string]>(
    "UPDATE session_message SET data = ? WHERE id = ? AND session_id = ?",
  )
  // Drops parts by id inside SQLite, so a prune never brings message bodies into JS; their ids join
  // `removedParts`, so removing one of them again is recognised as a retry.
  const dropParts = client.query<unknown, [string, string, string]>(
    `UPDATE session_message SET data = json_set(data,
       '$.parts', (
         SELECT json_group_array(json(p.value)) FROM json_each(session_message.data, '$.parts') p
         WHERE p.value ->> '$.id' NOT IN (SELECT value FROM json_each(?1))),
       '$.removedParts', (
         SELECT json_group_array(value) FROM (
           SELECT value FROM json_each(session_message.data, '$.removedParts')
           UNION ALL SELECT value FROM json_each(?1))))
     WHERE id = ?2 AND session_id = ?3`,
  )
  const insertClaim = client.query<unknown, [string, string, string, number]>(
    "INSERT INTO session_execution (session_id, turn_id, reason, attempts, time_started) VALUES (?, ?, ?, 0, ?)",
  )
  const resumeClaim = client.query<unknown, [number, string, string]>(
    "UPDATE session_execution SET attempts = ? WHERE session_id = ? AND turn_id = ?",
  )
  const releaseClaim = client.query<unknown, [string]>("DELETE FROM session_execution WHERE session_id = ?")
  const insertPermission = client.query<unknown, [string, string, string, string, number, string]>(
    "INSERT INTO session_permission (id, session_id, message_id, part_id, seq, data) VALUES (?, ?, ?, ?, ?, ?)",
  )
  const replyPermission = client.query<unknown, [string, string | null, string, string]>(
    "UPDATE session_permission SET reply = ?, message = ? WHERE id = ? AND session_id = ?",
  )

  const load = (event: Envelope, messageID: string): Message => {
    const row = readMessage.get(messageID, event.sessionID)
    if (!row) throw new Error(`${event.type}: message ${messageID} not in session ${event.sessionID}`)
    return JSON.parse(row.data)
  }
  const store = (event: Envelope, message: Message) =>
    writeMessage.run(JSON.stringify(message), message.id, event.sessionID)
  const admit = (event: Envelope, message: InputMessage) => {
    const stored = { ...message, seq: event.seq } as Message
    insertMessage.run(message.id, event.sessionID, event.seq, message.type, JSON.stringify(stored))
  }
  const mapParts = (event: Envelope, messageID: string, fn: (parts: ReadonlyArray<Part>) => ReadonlyArray<Part>) => {
    const message = load(event, messageID)
    store(event, { ...message, parts: fn(message.parts) } as Message)
  }

  const handlers: Record<string, (event: Envelope<any>) => void> = {
    [E.Created.type]: (event: Envelope<DataOf<typeof E.Created>>) => {
      const d = event.data
      insertSession.run(
        event.sessionID,
        d.title,
        d.directory,
        d.agent ?? null,
        d.model ?? null,
        event.seq,
        event.time,
        event.time,
      )
    },
    [E.Renamed.type]: (event: Envelope<DataOf<typeof E.Renamed>>) => {
      renameSession.run(event.data.title, event.sessionID)
    },
    [E.Deleted.type]: (event) => {
      deleteSession.run(event.sessionID)
    },
    [E.InputQueued.type]: (event: Envelope<DataOf<typeof E.InputQueued>>) => {
      insertInbox.run(
        event.data.message.id,
        event.sessionID,
        event.seq,
        JSON.stringify({ message: event.data.message, wake: event.data.wake }),
      )
    },
    [E.MessageAdmitted.type]: (event: Envelope<DataOf<typeof E.MessageAdmitted>>) => {
      deleteInbox.run(event.data.message.id, event.sessionID)
      admit(event, event.data.message)
    },
    [E.TurnStarted.type]: (event: Envelope<DataOf<typeof E.TurnStarted>>) => {
      insertClaim.run(event.sessionID, event.data.turnID, event.data.reason, event.time)
    },
    [E.TurnResumed.type]: (event: Envelope<DataOf<typeof E.TurnResumed>>) => {
      resumeClaim.run(event.data.attempt, event.sessionID, event.data.turnID)
    },
    [E.TurnEnded.type]: (event) => {
      releaseClaim.run(event.sessionID)
    },
    [E.AssistantStarted.type]: (event: Envelope<DataOf<typeof E.AssistantStarted>>) => {
      const d = event.data
      const message: AssistantMessage = {
        id: d.messageID,
        sessionID: event.sessionID,
        seq: event.seq,
        type: "assistant",
        origin: "host",
        parts: [],
        time: { created: event.time },
        turnID: d.turnID,
        agent: d.agent,
        model: d.model,
      }
      insertMessage.run(d.messageID, event.sessionID, event.seq, "assistant", JSON.stringify(message))
    },
    [E.PartUpdated.type]: (event: Envelope<DataOf<typeof E.PartUpdated>>) => {
      const { part } = event.data
      mapParts(event, event.data.messageID, (parts) => {
        const index = parts.findIndex((p) => p.id === part.id)
        return index === -1 ? [...parts, part] : parts.map((p, i) => (i === index ? part : p))
      })
    },
    [E.AssistantCompleted.type]: (event: Envelope<DataOf<typeof E.AssistantCompleted>>) => {
      const d = event.data
      const message = load(event, d.messageID) as AssistantMessage
      store(event, {
        ...message,
        time: { ...message.time, completed: event.time },
        finish: d.finish,
        error: d.error,
        usage: d.usage,
      })
    },
    [E.MessageCorrected.type]: (event: Envelope<DataOf<typeof E.MessageCorrected>>) => {
      const d = event.data
      mapParts(event, d.messageID, (parts) =>
        parts.map((p) => (p.id === d.partID && p.type === "text" ? { ...p, text: d.text } : p)),
      )
    },
    [E.MessageRetracted.type]: (event: Envelope<DataOf<typeof E.MessageRetracted>>) => {
      const d = event.data
      const waiting = readInbox.get(d.messageID, event.sessionID)
      if (waiting) {
        // Queued input retracted before delivery: it leaves the inbox (never delivered, never seen by the
        // model) and enters the transcript here, already retracted, taking this event's seq.
        deleteInbox.run(d.messageID, event.sessionID)
        admit(event, (JSON.parse(waiting.data) as { message: InputMessage }).message)
      }
      const message = load(event, d.messageID)
      store(event, { ...message, parts: [], retracted: { time: event.time, by: d.by }, placeholder: d.placeholder })
    },
    [E.PartRemoved.type]: (event: Envelope<DataOf<typeof E.PartRemoved>>) => {
      const d = event.data
      const message = load(event, d.messageID) as AssistantMessage
      store(event, {
        ...message,
        parts: message.parts.filter((p) => p.id !== d.partID),
        removedParts: [...(message.removedParts ?? []), d.partID],
      })
    },
    [E.Pruned.type]: (event: Envelope<DataOf<typeof E.Pruned>>) => {
      for (const { messageID, partIDs } of event.data.messages) {
        const changed = dropParts.run(JSON.stringify(partIDs), messageID, event.sessionID)
        if (changed.changes === 0)
          throw new Error(`${event.type}: message ${messageID} not in session ${event.sessionID}`)
      }
    },
    [E.Erased.type]: () => {},
    [E.PermissionAsked.type]: (event: Envelope<DataOf<typeof E.PermissionAsked>>) => {
      const d = event.data
      const ask = {
        id: d.permissionID,
        sessionID: event.sessionID,
        messageID: d.messageID,
        partID: d.partID,
        callID: d.callID,
        tool: d.tool,
        permission: d.permission,
        title: d.title,
        patterns: d.patterns,
        metadata: d.metadata,
        input: d.input,
        time: event.time,
      }
      insertPermission.run(d.permissionID, event.sessionID, d.messageID, d.partID, event.seq, JSON.stringify(ask))
    },
    [E.PermissionReplied.type]: (event: Envelope<DataOf<typeof E.PermissionReplied>>) => {
      const d = event.data
      const changed = replyPermission.run(d.reply, d.message ?? null, d.permissionID, event.sessionID)
      if (changed.changes === 0)
        throw new Error(`${event.type}: permission ${d.permissionID} not in session ${event.sessionID}`)
    },
    [E.Compacted.type]: (event: Envelope<DataOf<typeof E.Compacted>>) => {
      const message = event.data.message
      insertMessage.run(
        message.id,
        event.sessionID,
        event.seq,
        "compaction",
        JSON.stringify({ ...message, seq: event.seq }),
      )
    },
  }

  const readSeq = client.query<{ seq: number }, [string]>("SELECT seq FROM session WHERE id = ?")

  const project = (event: Envelope) => {
    const handler = handlers[event.type]
    if (!handler) throw new Error(`no projector for event type ${event.type}`)
    handler(event)
    if (event.type !== E.Created.type && event.type !== E.Deleted.type) {
      const changed = touchSession.run(event.seq, event.time, event.sessionID)
      if (changed.changes === 0) throw new Error(`${event.type}: session ${event.sessionID} does not exist`)
    }
  }
  /**
   * The session row carries the seq. A deleted session has no row, but no event can follow a deletion
   * (every admission requires the row), and the journal's unique `(aggregate_id, seq)` guards the rest.
   */
  const currentSeq = (sessionID: string) => readSeq.get(sessionID)?.seq ?? 0
  return { definitions: E.all, project, currentSeq }
}

/** The host's projector set: the session events, applied to the session tables. */
export const ProjectorsLive = Layer.effect(
  Projectors,
  Effect.gen(function* () {
    const database = yield* Database
    return Projectors.of(makeSessionProjector(database.client))
  }),
)
