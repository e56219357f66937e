import { SessionInfo, SessionMessage } from "@opencode-ai/schema"
import { Context, Effect, Layer, Schema } from "effect"
import { Bus, validate } from "../bus/bus.ts"
import { type Draft, draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { BusyError, InvalidInputError, MessageNotFoundError, type SessionNotFoundError } from "../domain/error.ts"
import type { AssistantItem, Message } from "../domain/message.ts"
import { SessionEvent } from "../domain/event.ts"
import { Session } from "../session/session.ts"

/** A session and its transcript as one JSON document: what `opencode2 session export` writes. */
export const SessionExport = Schema.Struct({
  format: Schema.Literal("opencode2.session"),
  version: Schema.Literal(2),
  session: SessionInfo,
  messages: Schema.Array(SessionMessage),
}).annotate({ identifier: "SessionExport" })
export type SessionExport = typeof SessionExport.Type

export interface TransferShape {
  /** The session and every message, in seq order. */
  export(sessionID: string): Effect.Effect<SessionExport, SessionNotFoundError>
  /**
   * Restores an export as a new session (new session and message ids, so it never collides with the
   * original), in one commit: the same title, directory, agent and model, and the same messages and parts
   * in order, retractions, completions and compaction summaries included (a summary covers the same
   * messages, so the model is sent what it was sent before). A document that does not decode is refused
   * whole.
   */
  import(document: unknown): Effect.Effect<SessionInfo, InvalidInputError>
  /**
   * A new session from the transcript up to and including `messageID` (all of it without one), copied as
   * `import` restores an export: same directory, agent and model, new ids, provenance, corrections,
   * retractions and compaction summaries kept. Its `parentID` is the forked session; its title is the
   * original's with " (fork)". A message of another session (or none) is `MessageNotFoundError`; a
   * range that holds an answer still being written is `BusyError` (fork at an earlier message, or wait).
   */
  fork(
    sessionID: string,
    messageID?: string,
  ): Effect.Effect<SessionInfo, SessionNotFoundError | MessageNotFoundError | BusyError>
}

const PAGE = 200

export class Transfer extends Context.Service<Transfer, TransferShape>()("@opencode-ai/core/session/Transfer") {
  static readonly layer = Layer.effect(
    Transfer,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const decode = Schema.decodeUnknownEffect(SessionExport)

      /** The events that rebuild one assistant item as stored. */
      const itemDrafts = (messageID: string, item: AssistantItem): Array<Draft> => {
        const assistantMessageID = messageID
        if (item.type === "text") {
          return [
            draft(SessionEvent.TextStarted, { assistantMessageID, textID: item.id }),
            draft(SessionEvent.TextEnded, { assistantMessageID, textID: item.id, text: item.text }),
            ...(item.corrected
              ? [
                  draft(SessionEvent.TextCorrected, {
                    messageID,
                    itemID: item.id,
                    text: item.text,
                    by: item.corrected.by,
                  }),
                ]
              : []),
          ]
        }
        if (item.type === "reasoning") {
          return [
            draft(SessionEvent.ReasoningStarted, { assistantMessageID, reasoningID: item.id }),
            draft(SessionEvent.ReasoningEnded, { assistantMessageID, reasoningID: item.id, text: item.text }),
          ]
        }
        const call = { assistantMessageID, callID: item.callID }
        const state = item.state
        const out: Array<Draft> = [
          draft(SessionEvent.ToolInputStarted, { ...call, name: item.name, itemID: item.id }),
          draft(SessionEvent.ToolInputEnded, {
            ...call,
            text: state.status === "pending" ? state.input : JSON.stringify(state.input),
          }),
        ]
        const title = item.title !== undefined ? { title: item.title } : {}
        const provider = { executed: item.provider?.executed ?? false }
        if (state.status !== "pending")
          out.push(
            draft(SessionEvent.ToolCalled, {
              ...call,
              tool: item.name,
              input: state.input,
              provider,
              itemID: item.id,
              ...title,
            }),
          )
        if (state.status === "completed")
          out.push(
            draft(SessionEvent.ToolSuccess, {
              ...call,
              structured: state.structured,
              content: state.content,
              ...(state.outputPaths ? { outputPaths: state.outputPaths } : {}),
              ...(state.result !== undefined ? { result: state.result } : {}),
              provider,
              ...title,
            }),
          )
        if (state.status === "error")
          out.push(
            draft(SessionEvent.ToolFailed, {
              ...call,
              error: state.error,
              structured: state.structured,
              ...(state.result !== undefined ? { result: state.result } : {}),
              provider,
              ...title,
            }),
          )
        if (item.time.pruned !== undefined)
          out.push(draft(SessionEvent.ToolPruned, { ...call, itemID: item.id, by: item.prunedBy ?? "user" }))
        return out
      }

      const drafts = (document: SessionExport, origin: { readonly parentID?: string } = {}): Array<Draft> => {
        const { session: info } = document
        const out: Array<Draft> = [
          draft(SessionEvent.Created, {
            title: info.title,
            location: { directory: info.location.directory },
            ...(origin.parentID !== undefined ? { parentID: origin.parentID } : {}),
            ...(info.agent !== undefined ? { agent: info.agent } : {}),
            ...(info.model !== undefined ? { model: info.model } : {}),
          }),
        ]
        // The commit numbers its drafts from 1 (the creation), so a message's new seq is its first draft's
        // position; a compaction's `through` and `promptID` are renumbered from these.
        const seqs: Array<{ readonly from: number; readonly to: number }> = []
        const ids = new Map<string, string>()
        for (const message of [...document.messages].sort((a, b) => a.seq - b.seq) as ReadonlyArray<Message>) {
          const messageID = ascending("msg")
          seqs.push({ from: message.seq, to: out.length + 1 })
          ids.set(message.id, messageID)
          const retracted = message.retracted
            ? [
                draft(SessionEvent.MessageRetracted, {
                  messageID,
                  placeholder: message.placeholder ?? "[A message was retracted.]",
                  by: message.retracted.by,
                }),
              ]
            : []
          switch (message.type) {
            case "assistant": {
              out.push(
                draft(SessionEvent.StepStarted, {
                  assistantMessageID: messageID,
                  turnID: message.turnID,
                  agent: message.agent,
                  model: message.model,
                }),
                ...message.content.flatMap((item) => itemDrafts(messageID, item)),
              )
              if (message.time.completed !== undefined) {
                out.push(
                  message.error
                    ? draft(SessionEvent.StepFailed, {
                        assistantMessageID: messageID,
                        error: message.error,
                        ...(message.finish !== undefined ? { finish: message.finish } : {}),
                        ...(message.tokens ? { tokens: message.tokens } : {}),
                      })
                    : draft(SessionEvent.StepEnded, {
                        assistantMessageID: messageID,
                        finish: message.finish ?? "stop",
                        cost: message.cost ?? 0,
                        tokens: message.tokens ?? { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
                      }),
                )
              }
              break
            }
            case "compaction": {
              // The summary covers the same messages as before: the last of them that was exported.
              const covered = seqs.filter((entry) => entry.from <= message.through).at(-1)
              const restated = message.promptID !== undefined ? ids.get(message.promptID) : undefined
              out.push(
                draft(SessionEvent.CompactionEnded, {
                  messageID,
                  reason: message.reason,
                  text: message.summary,
                  recent: message.recent,
                  ...(restated !== undefined ? { promptID: restated } : {}),
                  through: covered?.to ?? 0,
                  ...(message.overflow ? { overflow: true as const } : {}),
                  ...(message.model ? { model: message.model } : {}),
                  ...(message.tokens ? { tokens: message.tokens } : {}),
                }),
              )
              break
            }
            case "user":
              out.push(
                draft(SessionEvent.PromptAdmitted, {
                  messageID,
                  prompt: {
                    text: message.text,
                    ...(message.files ? { files: message.files } : {}),
                    ...(message.agents ? { agents: message.agents } : {}),
                  },
                  delivery: "queue",
                  origin: message.origin,
                  ...(message.agent !== undefined ? { agent: message.agent } : {}),
                  ...(message.model !== undefined ? { model: message.model } : {}),
                  ...(message.subtask !== undefined ? { subtask: message.subtask } : {}),
                }),
                ...retracted,
              )
              break
            case "synthetic":
              out.push(
                draft(SessionEvent.Synthetic, {
                  messageID,
                  text: message.text,
                  origin: message.origin,
                  ...(message.description !== undefined ? { description: message.description } : {}),
                }),
                ...retracted,
              )
              break
            case "agent-switched":
              out.push(draft(SessionEvent.AgentSwitched, { messageID, agent: message.agent }))
              break
            case "model-switched":
              out.push(draft(SessionEvent.ModelSwitched, { messageID, model: message.model }))
              break
            default:
              // Shell and system messages are not produced by this host; an export cannot hold them.
              break
          }
        }
        return out
      }

      const exportSession = Effect.fn("Transfer.export")((sessionID: string) =>
        Effect.gen(function* () {
          const info = yield* session.get(sessionID)
          const messages: Array<Message> = []
          let cursor: string | undefined
          do {
            const page = yield* session
              .messages(sessionID, { limit: PAGE, order: "asc", ...(cursor ? { cursor } : {}) })
              .pipe(Effect.catchTag("Session.InvalidInputError", Effect.die))
            messages.push(...page.data)
            cursor = page.cursor.next
          } while (cursor)
          return { format: "opencode2.session" as const, version: 2 as const, session: info, messages }
        }),
      )

      /** Commits the drafts of `document` as a new session and reads it back. */
      const restore = (document: SessionExport, origin: { readonly parentID?: string } = {}) =>
        Effect.gen(function* () {
          const sessionID = ascending("ses")
          const restored = drafts(document, origin)
          // The document comes from outside: a draft it cannot fill is bad input, checked before the commit
          // (where an invalid draft is a host defect).
          yield* Effect.try({
            try: () => restored.forEach(({ definition, data }) => validate(definition, data)),
            catch: (error) =>
              new InvalidInputError({ message: `cannot restore: ${(error as { message?: string }).message ?? error}` }),
          })
          yield* bus.commit(sessionID, restored)
          return yield* session.get(sessionID).pipe(Effect.orDie)
        })

      const implementation = Transfer.of({
        export: exportSession,
        fork: Effect.fn("Transfer.fork")((sessionID, messageID) =>
          Effect.gen(function* () {
            yield* session.get(sessionID)
            // Checked first: a message of another session never costs a read of this one's transcript.
            const target = messageID === undefined ? undefined : session.sync.message(sessionID, messageID)
            if (messageID !== undefined && !target) return yield* new MessageNotFoundError({ sessionID, messageID })
            const document = yield* exportSession(sessionID)
            const messages =
              target === undefined ? document.messages : document.messages.filter((m) => m.seq <= target.seq)
            // An answer still streaming has no end yet: a copy would hold a message no turn ever finishes.
            if (messages.some((message) => message.type === "assistant" && message.time.completed === undefined))
              return yield* new BusyError({ sessionID })
            return yield* restore(
              { ...document, session: { ...document.session, title: `${document.session.title} (fork)` }, messages },
              { parentID: sessionID },
            ).pipe(Effect.catchTag("Session.InvalidInputError", Effect.die))
          }),
        ),
        import: Effect.fn("Transfer.import")((input) =>
          Effect.gen(function* () {
            const document = yield* decode(input).pipe(
              Effect.mapError(
                (error) =>
                  new InvalidInputError({ message: `not a session export: ${error.message}`, field: "document" }),
              ),
            )
            const seqs = document.messages.map((m) => m.seq)
            if (new Set(seqs).size !== seqs.length)
              return yield* new InvalidInputError({
                message: "not a session export: two messages share a seq",
                field: "document",
              })
            return yield* restore(document)
          }),
        ),
      })
      return implementation
    }),
  )
}
