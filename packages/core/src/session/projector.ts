import { Effect, Layer } from "effect"
import type { Envelope } from "../bus/event.ts"
import { Projectors } from "../bus/projector.ts"
import { Database } from "../storage/database.ts"
import { SessionEvent as E, sessionDurableEvents } from "./event.ts"
import type { AssistantItem, AssistantMessage, Message, Queued, ToolItem } from "./message.ts"
import { callInput, syntheticMessage, userMessage } from "./message.ts"

type DataOf<D extends { data: { Type: unknown } }> = D["data"]["Type"]
type Handler<D extends { data: { Type: unknown } }> = (event: Envelope<DataOf<D>>) => void

/**
 * A tool item whose input and output left the transcript: the item, its name and status stay. A failed
 * call's error message is its output (what the model read back), so it goes too; the error's name stays.
 * The title goes as well: it is written from the input (`bash <command>`, `edit <path>`).
 */
export const prunedTool = ({ title: _title, ...item }: ToolItem, time: number, by: Message["origin"]): ToolItem => {
  const state = item.state
  const emptied: ToolItem["state"] =
    state.status === "pending"
      ? { status: "pending", input: "" }
      : state.status === "running"
        ? { status: "running", input: {}, structured: {}, content: [] }
        : state.status === "completed"
          ? { status: "completed", input: {}, structured: {}, content: [] }
          : { status: "error", input: {}, structured: {}, content: [], error: { ...state.error, message: "" } }
  return { ...item, state: emptied, time: { ...item.time, pruned: time }, prunedBy: by }
}

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

  const load = (event: Envelope, messageID: string): Message => {
    const row = readMessage.get(messageID, event.sessionID)
    if (!row) throw new Error(`${event.type}: message ${messageID} not in session ${event.sessionID}`)
    return JSON.parse(row.data)
  }
  const store = (event: Envelope, message: Message) =>
    writeMessage.run(JSON.stringify(message), message.id, event.sessionID)
  const insert = (event: Envelope, message: Message) =>
    insertMessage.run(message.id, event.sessionID, event.seq, message.type, JSON.stringify(message))

  const assistant = (event: Envelope, messageID: string): AssistantMessage => {
    const message = load(event, messageID)
    if (message.type !== "assistant") throw new Error(`${event.type}: message ${messageID} is not an assistant message`)
    return message
  }
  /** Replaces the content item `match` finds; a missing item means the journal is inconsistent. */
  const updateItem = (
    event: Envelope,
    messageID: string,
    match: (item: AssistantItem) => boolean,
    update: (item: AssistantItem) => AssistantItem,
  ) => {
    const message = assistant(event, messageID)
    const index = message.content.findIndex(match)
    if (index === -1) throw new Error(`${event.type}: no such item in message ${messageID}`)
    store(event, { ...message, content: message.content.map((item, i) => (i === index ? update(item) : item)) })
  }
  const appendItem = (event: Envelope, messageID: string, item: AssistantItem) => {
    const message = assistant(event, messageID)
    store(event, { ...message, content: [...message.content, item] })
  }
  const byID = (id: string) => (item: AssistantItem) => item.id === id
  const byCall = (callID: string) => (item: AssistantItem) => item.type === "tool" && item.callID === callID
  const tool = (item: AssistantItem): ToolItem => {
    if (item.type !== "tool") throw new Error(`item ${item.id} is not a tool call`)
    return item
  }
  const toolInput = callInput

  /** Drops a reasoning item and remembers its id, so a repeated removal is recognised as a retry. */
  const removeReasoning = (message: AssistantMessage, itemIDs: ReadonlySet<string>): AssistantMessage => ({
    ...message,
    content: message.content.filter((item) => !(item.type === "reasoning" && itemIDs.has(item.id))),
    removed: [...(message.removed ?? []), ...itemIDs],
  })

  const readRestating = client.query<{ id: string; data: string }, [string, string]>(
    "SELECT id, data FROM session_message WHERE session_id = ? AND type = 'compaction' AND json_extract(data, '$.promptID') = ?",
  )
  /** A compaction restating this prompt restates it as it now stands (corrected, or emptied by a retraction). */
  const restate = (event: Envelope, promptID: string, text: string) => {
    for (const row of readRestating.all(event.sessionID, promptID)) {
      const compaction = JSON.parse(row.data) as Message
      if (compaction.type === "compaction") store(event, { ...compaction, recent: text })
    }
  }

  const queue = (event: Envelope, messageID: string, item: Queued) =>
    insertInbox.run(messageID, event.sessionID, event.seq, JSON.stringify(item))

  const handlers: { [type: string]: (event: Envelope<any>) => void } = {
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
      insert(event, {
        id: event.data.messageID,
        sessionID: event.sessionID,
        seq: event.seq,
        origin: "user",
        type: "agent-switched",
        time: { created: event.time },
        agent: event.data.agent,
      })
    }) satisfies Handler<typeof E.AgentSwitched>,
    [E.ModelSwitched.type]: ((event) => {
      switchModel.run(JSON.stringify(event.data.model), event.sessionID)
      insert(event, {
        id: event.data.messageID,
        sessionID: event.sessionID,
        seq: event.seq,
        origin: "user",
        type: "model-switched",
        time: { created: event.time },
        model: event.data.model,
      })
    }) satisfies Handler<typeof E.ModelSwitched>,

    // ---- input ----
    [E.Prompted.type]: ((event) => {
      const { resume, ...data } = event.data
      queue(event, data.messageID, { kind: "prompt", data, wake: resume !== false, time: event.time })
    }) satisfies Handler<typeof E.Prompted>,
    [E.PromptAdmitted.type]: ((event) => {
      deleteInbox.run(event.data.messageID, event.sessionID)
      insert(event, userMessage(event.sessionID, event.seq, event.time, event.data))
    }) satisfies Handler<typeof E.PromptAdmitted>,
    [E.SyntheticQueued.type]: ((event) => {
      const { resume, ...data } = event.data
      queue(event, data.messageID, { kind: "synthetic", data, wake: resume, time: event.time })
    }) satisfies Handler<typeof E.SyntheticQueued>,
    [E.Synthetic.type]: ((event) => {
      deleteInbox.run(event.data.messageID, event.sessionID)
      insert(event, syntheticMessage(event.sessionID, event.seq, event.time, event.data))
    }) satisfies Handler<typeof E.Synthetic>,

    // ---- turns: the execution claim ----
    [E.TurnStarted.type]: ((event) => {
      insertClaim.run(event.sessionID, event.data.turnID, event.data.reason, event.time)
    }) satisfies Handler<typeof E.TurnStarted>,
    [E.TurnResumed.type]: ((event) => {
      resumeClaim.run(event.data.attempt, event.sessionID, event.data.turnID)
    }) satisfies Handler<typeof E.TurnResumed>,
    [E.TurnEnded.type]: (event) => {
      releaseClaim.run(event.sessionID)
    },

    // ---- steps ----
    [E.StepStarted.type]: ((event) => {
      const d = event.data
      insert(event, {
        id: d.assistantMessageID,
        sessionID: event.sessionID,
        seq: event.seq,
        origin: "host",
        type: "assistant",
        time: { created: event.time },
        agent: d.agent,
        model: d.model,
        content: [],
        turnID: d.turnID,
        ...(d.snapshot !== undefined ? { snapshot: { start: d.snapshot } } : {}),
      })
    }) satisfies Handler<typeof E.StepStarted>,
    [E.StepEnded.type]: ((event) => {
      const d = event.data
      const message = assistant(event, d.assistantMessageID)
      store(event, {
        ...message,
        time: { ...message.time, completed: event.time },
        finish: d.finish,
        cost: d.cost,
        tokens: d.tokens,
      })
      const t = d.tokens
      addUsage.run(d.cost, t.input, t.output, t.reasoning, t.cache.read, t.cache.write, event.sessionID)
    }) satisfies Handler<typeof E.StepEnded>,
    [E.StepFailed.type]: ((event) => {
      const d = event.data
      const message = assistant(event, d.assistantMessageID)
      store(event, {
        ...message,
        time: { ...message.time, completed: event.time },
        finish: d.finish ?? "error",
        error: d.error,
        ...(d.tokens ? { tokens: d.tokens } : {}),
      })
      if (d.tokens) {
        const t = d.tokens
        addUsage.run(0, t.input, t.output, t.reasoning, t.cache.read, t.cache.write, event.sessionID)
      }
    }) satisfies Handler<typeof E.StepFailed>,

    // ---- text and reasoning ----
    [E.TextStarted.type]: ((event) => {
      appendItem(event, event.data.assistantMessageID, { type: "text", id: event.data.textID, text: "" })
    }) satisfies Handler<typeof E.TextStarted>,
    [E.TextAppended.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byID(d.textID), (item) =>
        item.type === "text" ? { ...item, text: item.text.slice(0, d.offset) + d.text } : item,
      )
    }) satisfies Handler<typeof E.TextAppended>,
    [E.TextEnded.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byID(d.textID), (item) =>
        item.type === "text" ? { ...item, text: d.text } : item,
      )
    }) satisfies Handler<typeof E.TextEnded>,
    [E.ReasoningStarted.type]: ((event) => {
      const d = event.data
      appendItem(event, d.assistantMessageID, {
        type: "reasoning",
        id: d.reasoningID,
        text: "",
        ...(d.providerMetadata ? { providerMetadata: d.providerMetadata } : {}),
        time: { created: event.time },
      })
    }) satisfies Handler<typeof E.ReasoningStarted>,
    [E.ReasoningAppended.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byID(d.reasoningID), (item) =>
        item.type === "reasoning" ? { ...item, text: item.text.slice(0, d.offset) + d.text } : item,
      )
    }) satisfies Handler<typeof E.ReasoningAppended>,
    [E.ReasoningEnded.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byID(d.reasoningID), (item) =>
        item.type === "reasoning"
          ? {
              ...item,
              text: d.text,
              ...(d.providerMetadata ? { providerMetadata: d.providerMetadata } : {}),
              time: { created: item.time?.created ?? event.time, completed: event.time },
            }
          : item,
      )
    }) satisfies Handler<typeof E.ReasoningEnded>,

    // ---- tools ----
    [E.ToolInputStarted.type]: ((event) => {
      const d = event.data
      appendItem(event, d.assistantMessageID, {
        type: "tool",
        id: d.itemID,
        callID: d.callID,
        name: d.name,
        state: { status: "pending", input: "" },
        time: { created: event.time },
      })
    }) satisfies Handler<typeof E.ToolInputStarted>,
    [E.ToolInputEnded.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byCall(d.callID), (item) => ({
        ...tool(item),
        state: { status: "pending", input: d.text },
      }))
    }) satisfies Handler<typeof E.ToolInputEnded>,
    [E.ToolCalled.type]: ((event) => {
      const d = event.data
      const running = {
        state: { status: "running" as const, input: d.input, structured: {}, content: [] },
        ...(d.title !== undefined ? { title: d.title } : {}),
        provider: { executed: d.provider.executed },
      }
      const message = assistant(event, d.assistantMessageID)
      if (!message.content.some(byCall(d.callID))) {
        // A provider that sends whole calls (no streamed input) starts the item here.
        store(event, {
          ...message,
          content: [
            ...message.content,
            {
              type: "tool",
              id: d.itemID,
              callID: d.callID,
              name: d.tool,
              ...running,
              time: { created: event.time, ran: event.time },
            },
          ],
        })
        return
      }
      updateItem(event, d.assistantMessageID, byCall(d.callID), (item) => {
        const call = tool(item)
        return { ...call, ...running, time: { ...call.time, ran: event.time } }
      })
    }) satisfies Handler<typeof E.ToolCalled>,
    [E.ToolProgress.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byCall(d.callID), (item) => {
        const call = tool(item)
        return {
          ...call,
          state: { status: "running", input: toolInput(call), structured: d.structured, content: d.content },
        }
      })
    }) satisfies Handler<typeof E.ToolProgress>,
    [E.ToolSuccess.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byCall(d.callID), (item) => {
        const call = tool(item)
        return {
          ...call,
          ...(d.title !== undefined ? { title: d.title } : {}),
          state: {
            status: "completed",
            input: toolInput(call),
            content: d.content,
            structured: d.structured,
            ...(d.outputPaths ? { outputPaths: d.outputPaths } : {}),
            ...(d.result !== undefined ? { result: d.result } : {}),
          },
          time: { ...call.time, completed: event.time },
        }
      })
    }) satisfies Handler<typeof E.ToolSuccess>,
    [E.ToolFailed.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byCall(d.callID), (item) => {
        const call = tool(item)
        return {
          ...call,
          ...(d.title !== undefined ? { title: d.title } : {}),
          state: {
            status: "error",
            input: toolInput(call),
            content: [],
            structured: d.structured ?? {},
            error: d.error,
            ...(d.result !== undefined ? { result: d.result } : {}),
          },
          time: { ...call.time, completed: event.time },
        }
      })
    }) satisfies Handler<typeof E.ToolFailed>,

    // Recorded for history; the retrying status itself is process-local.
    [E.Retried.type]: () => {},

    // ---- compaction ----
    [E.CompactionStarted.type]: () => {},
    [E.CompactionEnded.type]: ((event) => {
      const d = event.data
      insert(event, {
        id: d.messageID,
        sessionID: event.sessionID,
        seq: event.seq,
        origin: "host",
        type: "compaction",
        time: { created: event.time },
        reason: d.reason,
        ...(d.overflow ? { overflow: true as const } : {}),
        summary: d.text,
        recent: d.recent,
        ...(d.promptID !== undefined ? { promptID: d.promptID } : {}),
        through: d.through,
        ...(d.model ? { model: d.model } : {}),
        ...(d.tokens ? { tokens: d.tokens } : {}),
      })
    }) satisfies Handler<typeof E.CompactionEnded>,

    // ---- permissions ----
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

    // ---- the mutation contract ----
    [E.TextCorrected.type]: ((event) => {
      const d = event.data
      const corrected = { time: event.time, by: d.by }
      const message = load(event, d.messageID)
      if (d.itemID === undefined) {
        if (message.type === "compaction") {
          store(event, { ...message, summary: d.text, corrected })
          return
        }
        if (message.type !== "user" && message.type !== "synthetic")
          throw new Error(`${event.type}: message ${d.messageID} has no text of its own`)
        store(event, { ...message, text: d.text, corrected })
        restate(event, d.messageID, d.text)
        return
      }
      updateItem(event, d.messageID, byID(d.itemID), (item) =>
        item.type === "text" ? { ...item, text: d.text, corrected } : item,
      )
    }) satisfies Handler<typeof E.TextCorrected>,
    [E.MessageRetracted.type]: ((event) => {
      const d = event.data
      const waiting = readInbox.get(d.messageID, event.sessionID)
      if (waiting) {
        // Queued input retracted before delivery: it leaves the inbox (never delivered, never seen by the
        // model) and enters the transcript here, already retracted, taking this event's seq.
        deleteInbox.run(d.messageID, event.sessionID)
        const item = JSON.parse(waiting.data) as Queued
        insert(
          event,
          item.kind === "prompt"
            ? userMessage(event.sessionID, event.seq, item.time, item.data)
            : syntheticMessage(event.sessionID, event.seq, item.time, item.data),
        )
      }
      const message = load(event, d.messageID)
      if (message.type !== "user" && message.type !== "synthetic")
        throw new Error(`${event.type}: message ${d.messageID} cannot be retracted`)
      const {
        files: _files,
        agents: _agents,
        ...kept
      } = message as typeof message & {
        files?: unknown
        agents?: unknown
      }
      store(event, { ...kept, text: "", retracted: { time: event.time, by: d.by }, placeholder: d.placeholder })
      restate(event, d.messageID, "")
    }) satisfies Handler<typeof E.MessageRetracted>,
    [E.ToolPruned.type]: ((event) => {
      const d = event.data
      updateItem(event, d.assistantMessageID, byID(d.itemID), (item) => prunedTool(tool(item), event.time, d.by))
    }) satisfies Handler<typeof E.ToolPruned>,
    [E.ReasoningRemoved.type]: ((event) => {
      const d = event.data
      store(event, removeReasoning(assistant(event, d.assistantMessageID), new Set([d.reasoningID])))
    }) satisfies Handler<typeof E.ReasoningRemoved>,
    [E.Pruned.type]: ((event) => {
      for (const { messageID, itemIDs } of event.data.messages) {
        const ids = new Set(itemIDs)
        const message = assistant(event, messageID)
        const reasoning = new Set(
          message.content.filter((i) => i.type === "reasoning" && ids.has(i.id)).map((i) => i.id),
        )
        const pruned: AssistantMessage = {
          ...message,
          content: message.content.map((item) =>
            item.type === "tool" && ids.has(item.id) ? prunedTool(item, event.time, event.data.by) : item,
          ),
        }
        store(event, reasoning.size > 0 ? removeReasoning(pruned, reasoning) : pruned)
      }
    }) satisfies Handler<typeof E.Pruned>,
    [E.Erased.type]: () => {},
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
