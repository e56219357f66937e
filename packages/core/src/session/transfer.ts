import { Message, SessionInfo } from "@opencode-ai/plugin"
import { Context, Effect, Layer, Schema } from "effect"
import { Bus } from "../bus/bus.ts"
import { type Draft, draft } from "../bus/event.ts"
import { ascending } from "../id/id.ts"
import { InvalidInputError, type SessionNotFoundError } from "./error.ts"
import { SessionEvent } from "./event.ts"
import { Session } from "./session.ts"

/** A session and its transcript as one JSON document: what `opencode2 session export` writes. */
export const SessionExport = Schema.Struct({
  format: Schema.Literal("opencode2.session"),
  version: Schema.Literal(1),
  session: SessionInfo,
  messages: Schema.Array(Message),
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
}

const PAGE = 200

export class Transfer extends Context.Service<Transfer, TransferShape>()("@opencode-ai/core/session/Transfer") {
  static readonly layer = Layer.effect(
    Transfer,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const decode = Schema.decodeUnknownEffect(SessionExport)

      const drafts = (document: SessionExport, sessionID: string): Array<Draft> => {
        const { session: info } = document
        const out: Array<Draft> = [
          draft(SessionEvent.Created, {
            title: info.title,
            directory: info.directory,
            ...(info.agent !== undefined ? { agent: info.agent } : {}),
            ...(info.model !== undefined ? { model: info.model } : {}),
          }),
        ]
        // The commit numbers its drafts from 1 (the creation), so a message's new seq is its first draft's
        // position; a compaction's `through` and `prompt` are renumbered from these.
        const seqs: Array<{ readonly from: number; readonly to: number }> = []
        const ids = new Map<string, string>()
        for (const message of [...document.messages].sort((a, b) => a.seq - b.seq)) {
          const messageID = ascending("msg")
          seqs.push({ from: message.seq, to: out.length + 1 })
          ids.set(message.id, messageID)
          if (message.type === "assistant") {
            out.push(
              draft(SessionEvent.AssistantStarted, {
                messageID,
                turnID: message.turnID,
                agent: message.agent,
                model: message.model,
              }),
              ...message.parts.map((part) => draft(SessionEvent.PartUpdated, { messageID, part })),
            )
            if (message.time.completed !== undefined) {
              out.push(
                draft(SessionEvent.AssistantCompleted, {
                  messageID,
                  ...(message.finish !== undefined ? { finish: message.finish } : {}),
                  ...(message.error !== undefined ? { error: message.error } : {}),
                  ...(message.usage !== undefined ? { usage: message.usage } : {}),
                }),
              )
            }
            continue
          }
          if (message.type === "compaction") {
            // The summary covers the same messages as before: the last of them that was exported.
            const { seq: _, prompt, through, ...summary } = message
            const covered = seqs.filter((entry) => entry.from <= through).at(-1)
            const restated = prompt !== undefined ? ids.get(prompt) : undefined
            out.push(
              draft(SessionEvent.Compacted, {
                message: {
                  ...summary,
                  id: messageID,
                  sessionID,
                  through: covered?.to ?? 0,
                  ...(restated !== undefined ? { prompt: restated } : {}),
                },
              }),
            )
            continue
          }
          const { seq: _, ...input } = message
          out.push(draft(SessionEvent.MessageAdmitted, { message: { ...input, id: messageID, sessionID } }))
        }
        return out
      }

      return Transfer.of({
        export: (sessionID) =>
          Effect.gen(function* () {
            const info = yield* session.get(sessionID)
            const messages: Array<Message> = []
            let cursor: string | undefined
            do {
              const page = yield* session.messages(sessionID, {
                limit: PAGE,
                order: "asc",
                ...(cursor ? { cursor } : {}),
              })
              messages.push(...page.items)
              cursor = page.cursor
            } while (cursor)
            return { format: "opencode2.session" as const, version: 1 as const, session: info, messages }
          }),
        import: (input) =>
          Effect.gen(function* () {
            const document = yield* decode(input).pipe(
              Effect.mapError(
                (error) =>
                  new InvalidInputError({ message: `not a session export: ${error.message}`, field: "document" }),
              ),
            )
            const sessionID = ascending("ses")
            yield* bus
              .commit(sessionID, drafts(document, sessionID))
              .pipe(Effect.mapError((error) => new InvalidInputError({ message: `cannot restore: ${error.message}` })))
            return yield* session.get(sessionID).pipe(Effect.orDie)
          }),
      })
    }),
  )
}
