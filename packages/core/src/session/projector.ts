import { Effect, Layer } from "effect"
import type { Envelope } from "../bus/event.ts"
import { Projectors } from "../bus/projector.ts"
import { Database } from "../storage/database.ts"
import { SessionEvent as E, sessionDurableEvents } from "../domain/event.ts"
import { changedMessages, createdMessage, prunedTool, restatedText, updateMessage } from "@opencode-ai/schema"
import type { Message, Queued } from "../domain/message.ts"
import { syntheticMessage, userMessage } from "../domain/message.ts"

type DataOf<D extends { data: { Type: unknown } }> = D["data"]["Type"]
type Handler<D extends { data: { Type: unknown } }> = (event: Envelope<DataOf<D>>) => void

/** A tool item whose input and output left the transcript (see `@opencode-ai/schema`'s transcript rules). */
export { prunedTool }

/**
 * Applies session events to the projection tables. Pure in the event: it reads only the rows it updates
 * and takes time and seq from the envelope, so the journal replayed into an empty database gives the same
 * rows, byte for byte.
 */
export const makeSessionProjector = (client: Database["Service"]["client"]) => {
  const insertSession = client.query<
    unknown,
    [string, string, string, string | null, string | null, string | null, number, number, number]
  >(
    "INSERT INTO session (id, title, directory, parent_id, agent, model, seq, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
  const touchSession = client.query<unknown, [number, number, string]>(
    "UPDATE session SET seq = ?, time_updated = ? WHERE id = ?",
  )
  const renameSession = client.query<unknown, [string, string]>("UPDATE session SET title = ? WHERE id = ?")
  const switchAgent = client.query<unknown, [string, string]>("UPDATE session SET agent = ? WHERE id = ?")
  const switchModel = client.query<unknown, [string, string]>("UPDATE session SET model = ? WHERE id = ?")
  const addUsage = client.query<unknown, [number, number, number, number, number, number, string]>(
    `UPDATE session SET cost = cost + ?, tokens_input = tokens_input + ?, tokens_output = tokens_output + ?,
       tokens_reasoning = tokens_reasoning + ?, tokens_cache_read = tokens_cache_read + ?,
       tokens_cache_write = tokens_cache_write + ? WHERE id = ?`,
  )
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
  const insertQuestion = client.query<unknown, [string, string, string | null, string | null, number, string]>(
    "INSERT INTO session_question (id, session_id, message_id, call_id, seq, data, state) VALUES (?, ?, ?, ?, ?, ?, 'pending')",
  )
  const settleQuestion = client.query<unknown, [string, string | null, string, string]>(
    "UPDATE session_question SET state = ?, answers = ? WHERE id = ? AND session_id = ? AND state = 'pending'",
  )
  const writeTodos = client.query<unknown, [string, number, string]>(
    "INSERT INTO session_todo (session_id, seq, data) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, data = excluded.data",
  )

  const writeRevert = client.query<unknown, [string | null, string]>("UPDATE session SET revert = ? WHERE id = ?")
  const deleteRange = client.query<unknown, [string, number, number]>(
    "DELETE FROM session_message WHERE session_id = ? AND seq > ? AND seq <= ?",
  )
  const deleteRangePermissions = client.query<unknown, [string, number, number]>(
    "DELETE FROM session_permission WHERE session_id = ?1 AND message_id IN (SELECT id FROM session_message WHERE session_id = ?1 AND seq > ?2 AND seq <= ?3)",
  )

  const load = (event: Envelope, messageID: string): Message => {
    const row = readMessage.get(messageID, event.sessionID)
    if (!row) throw new Error(`${event.type}: message ${messageID} not in session ${event.sessionID}`)
    return JSON.parse(row.data)
  }
  const store = (event: Envelope, message: Message) =>
    writeMessage.run(JSON.stringify(message), message.id, event.sessionID)
  const insert = (event: Envelope, message: Message) =>
    insertMessage.run(message.id, event.sessionID, event.seq, message.type, JSON.stringify(message))

  const readRestating = client.query<{ id: string; data: string }, [string, string]>(
    "SELECT id, data FROM session_message WHERE session_id = ? AND type = 'compaction' AND json_extract(data, '$.promptID') = ?",
  )
  const queue = (event: Envelope, messageID: string, item: Queued) =>
    insertInbox.run(messageID, event.sessionID, event.seq, JSON.stringify(item))

  /**
   * What an event does besides changing messages (which `project` does with the shared transcript rules):
   * the session row, the inbox, the execution claim, permission requests and usage.
   */
  const effects: { [type: string]: (event: Envelope<any>) => void } = {
    [E.Created.type]: ((event) => {
      const d = event.data
      insertSession.run(
        event.sessionID,
        d.title,
        d.location.directory,
        d.parentID ?? null,
        d.agent ?? null,
        d.model ? JSON.stringify(d.model) : null,
        event.seq,
        event.time,
        event.time,
      )
    }) satisfies Handler<typeof E.Created>,
    [E.Renamed.type]: ((event) => {
      renameSession.run(event.data.title, event.sessionID)
    }) satisfies Handler<typeof E.Renamed>,
    [E.Deleted.type]: (event) => {
      deleteSession.run(event.sessionID)
    },
    [E.AgentSwitched.type]: ((event) => {
      switchAgent.run(event.data.agent, event.sessionID)
    }) satisfies Handler<typeof E.AgentSwitched>,
    [E.ModelSwitched.type]: ((event) => {
      switchModel.run(JSON.stringify(event.data.model), event.sessionID)
    }) satisfies Handler<typeof E.ModelSwitched>,
    [E.Prompted.type]: ((event) => {
      const { resume, ...data } = event.data
      queue(event, data.messageID, { kind: "prompt", data, wake: resume !== false, time: event.time })
    }) satisfies Handler<typeof E.Prompted>,
    [E.SyntheticQueued.type]: ((event) => {
      const { resume, ...data } = event.data
      queue(event, data.messageID, { kind: "synthetic", data, wake: resume, time: event.time })
    }) satisfies Handler<typeof E.SyntheticQueued>,
    [E.PromptAdmitted.type]: ((event) => {
      deleteInbox.run(event.data.messageID, event.sessionID)
    }) satisfies Handler<typeof E.PromptAdmitted>,
    [E.Synthetic.type]: ((event) => {
      deleteInbox.run(event.data.messageID, event.sessionID)
    }) satisfies Handler<typeof E.Synthetic>,
    [E.TurnStarted.type]: ((event) => {
      insertClaim.run(event.sessionID, event.data.turnID, event.data.reason, event.time)
    }) satisfies Handler<typeof E.TurnStarted>,
    [E.TurnResumed.type]: ((event) => {
      resumeClaim.run(event.data.attempt, event.sessionID, event.data.turnID)
    }) satisfies Handler<typeof E.TurnResumed>,
    [E.TurnEnded.type]: (event) => {
      releaseClaim.run(event.sessionID)
    },
    [E.StepEnded.type]: ((event) => {
      const { cost, tokens: t } = event.data
      addUsage.run(cost, t.input, t.output, t.reasoning, t.cache.read, t.cache.write, event.sessionID)
    }) satisfies Handler<typeof E.StepEnded>,
    [E.StepFailed.type]: ((event) => {
      const t = event.data.tokens
      if (t) addUsage.run(0, t.input, t.output, t.reasoning, t.cache.read, t.cache.write, event.sessionID)
    }) satisfies Handler<typeof E.StepFailed>,
    [E.PermissionAsked.type]: ((event) => {
      const d = event.data
      const request = { ...d, sessionID: event.sessionID, time: event.time }
      insertPermission.run(d.id, event.sessionID, d.source.messageID, d.itemID, event.seq, JSON.stringify(request))
    }) satisfies Handler<typeof E.PermissionAsked>,
    [E.PermissionReplied.type]: ((event) => {
      const d = event.data
      const changed = replyPermission.run(d.reply, d.message ?? null, d.requestID, event.sessionID)
      if (changed.changes === 0)
        throw new Error(`${event.type}: permission request ${d.requestID} not in session ${event.sessionID}`)
    }) satisfies Handler<typeof E.PermissionReplied>,
    [E.QuestionAsked.type]: ((event) => {
      const d = event.data
      const request = { ...d, sessionID: event.sessionID, time: event.time }
      insertQuestion.run(
        d.id,
        event.sessionID,
        d.tool?.messageID ?? null,
        d.tool?.callID ?? null,
        event.seq,
        JSON.stringify(request),
      )
    }) satisfies Handler<typeof E.QuestionAsked>,
    [E.QuestionReplied.type]: ((event) => {
      const d = event.data
      const changed = settleQuestion.run("replied", JSON.stringify(d.answers), d.requestID, event.sessionID)
      if (changed.changes === 0)
        throw new Error(`${event.type}: question ${d.requestID} is not pending in session ${event.sessionID}`)
    }) satisfies Handler<typeof E.QuestionReplied>,
    [E.QuestionRejected.type]: ((event) => {
      const d = event.data
      const changed = settleQuestion.run("rejected", null, d.requestID, event.sessionID)
      if (changed.changes === 0)
        throw new Error(`${event.type}: question ${d.requestID} is not pending in session ${event.sessionID}`)
    }) satisfies Handler<typeof E.QuestionRejected>,
    [E.TodoUpdated.type]: ((event) => {
      writeTodos.run(event.sessionID, event.seq, JSON.stringify(event.data.todos))
    }) satisfies Handler<typeof E.TodoUpdated>,
    [E.MessageRetracted.type]: ((event) => {
      const waiting = readInbox.get(event.data.messageID, event.sessionID)
      if (!waiting) return
      // Queued input retracted before delivery: it leaves the inbox (never delivered, never seen by the
      // model) and enters the transcript here, about to be retracted, taking this event's seq.
      deleteInbox.run(event.data.messageID, event.sessionID)
      const item = JSON.parse(waiting.data) as Queued
      insert(
        event,
        item.kind === "prompt"
          ? userMessage(event.sessionID, event.seq, item.time, item.data)
          : syntheticMessage(event.sessionID, event.seq, item.time, item.data),
      )
    }) satisfies Handler<typeof E.MessageRetracted>,
    [E.RevertStaged.type]: ((event) => {
      writeRevert.run(JSON.stringify(event.data.revert), event.sessionID)
    }) satisfies Handler<typeof E.RevertStaged>,
    [E.RevertCleared.type]: (event) => {
      writeRevert.run(null, event.sessionID)
    },
    [E.RevertCommitted.type]: ((event) => {
      const { after, through } = event.data
      // The hidden messages leave the transcript with their permission requests; the revert is over.
      deleteRangePermissions.run(event.sessionID, after, through)
      deleteRange.run(event.sessionID, after, through)
      writeRevert.run(null, event.sessionID)
    }) satisfies Handler<typeof E.RevertCommitted>,
  }

  /** Every event type the projector knows: those with effects, and those that only change messages. */
  const known = new Set(sessionDurableEvents.map((definition) => definition.type))

  /** The transcript side of an event, by the shared rules: a message it creates, the messages it changes. */
  const transcript = (event: Envelope) => {
    const created = createdMessage(event)
    if (created) insert(event, created)
    for (const messageID of changedMessages(event)) {
      try {
        store(event, updateMessage(load(event, messageID), event) as Message)
      } catch (cause) {
        throw new Error(`${event.type}: ${(cause as Error).message} (session ${event.sessionID})`)
      }
    }
    // A compaction restating a prompt restates it as it now stands (corrected, or emptied by a retraction).
    const restated = restatedText(event)
    if (restated) {
      for (const row of readRestating.all(event.sessionID, restated.promptID)) {
        const compaction = JSON.parse(row.data) as Message
        if (compaction.type === "compaction") store(event, { ...compaction, recent: restated.text })
      }
    }
  }

  const readSeq = client.query<{ seq: number }, [string]>("SELECT seq FROM session WHERE id = ?")

  const project = (event: Envelope) => {
    if (!known.has(event.type)) throw new Error(`no projector for event type ${event.type}`)
    effects[event.type]?.(event)
    transcript(event)
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
  return { definitions: sessionDurableEvents, project, currentSeq }
}

/** The host's projector set: the session events, applied to the session tables. */
export const ProjectorsLive = Layer.effect(
  Projectors,
  Effect.gen(function* () {
    const database = yield* Database
    return Projectors.of(makeSessionProjector(database.client))
  }),
)
