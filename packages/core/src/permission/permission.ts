import type { PermissionEvent } from "@opencode-ai/plugin"
import { PermissionReply } from "@opencode-ai/schema"
import { Context, Deferred, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft, type Draft } from "../bus/event.ts"
import { Config } from "../config/config.ts"
import { ascending } from "../id/id.ts"
import { HookError, Hooks, hookTimeout } from "../hooks/hooks.ts"
import { SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import { Database } from "../storage/database.ts"
import type { PermissionKey } from "../config/permission.ts"
import type { ToolPlan } from "../tool/tool.ts"
import type { PermissionRequest } from "./ask.ts"
import { PermissionNotFoundError } from "./error.ts"
import { covered, evaluate, type PermissionAction, ruleFor } from "../config/permission.ts"

export type { PermissionRequest } from "./ask.ts"
export { PermissionReply }

/** How an ask was answered. */
export interface Answer {
  readonly reply: PermissionReply
  readonly message?: string
}

export interface AskInput {
  readonly sessionID: string
  readonly messageID: string
  readonly itemID: string
  readonly callID: string
  readonly tool: string
  readonly input: unknown
  readonly plan: ToolPlan
}

export interface PermissionsShape {
  /** The session's pending asks and those of its descendants (its `task` children), oldest first. */
  list(sessionID: string): Effect.Effect<ReadonlyArray<PermissionRequest>, SessionNotFoundError>
  /**
   * Answers a pending ask of the session or of a descendant once; a second answer (or an unknown id, or
   * an ask of an unrelated session) is `PermissionNotFoundError`.
   */
  reply(input: {
    readonly sessionID: string
    readonly requestID: string
    readonly reply: PermissionReply
    readonly message?: string
  }): Effect.Effect<
    { readonly id: string; readonly reply: PermissionReply },
    SessionNotFoundError | PermissionNotFoundError
  >
  /**
   * What happens to a planned call: the agent's or global rule for its kind and patterns, then the
   * session's `always` grants, then the plugin `permission` hook, which may set the decision.
   */
  decide(input: {
    readonly sessionID: string
    readonly agentID: string
    readonly tool: string
    readonly input: unknown
    readonly plan: ToolPlan
  }): Effect.Effect<PermissionAction, HookError>
  /** Commits a durable ask for a call; returns its id. */
  ask(input: AskInput): Effect.Effect<string>
  /** Waits for the answer to an ask (returns at once if it was already answered, e.g. before a restart). */
  answer(permissionID: string): Effect.Effect<Answer>
  /**
   * Rejects every pending ask of the session, committing the replies. Waiting calls are woken (and
   * become tool errors) unless `wake` is false: an interrupt stops the waiting turn itself.
   */
  rejectPending(sessionID: string, message?: string, options?: { readonly wake?: boolean }): Effect.Effect<void>
  /** Synchronous reads for commit decisions. */
  readonly sync: {
    pending(sessionID: string): ReadonlyArray<PermissionRequest>
    /** Every session's pending requests, oldest first. */
    all(): ReadonlyArray<PermissionRequest>
    /**
     * Every ask of one message, answered or not, oldest first: a restart finishes a call whose ask was
     * answered before the resumed turn read it, so "pending" alone would miss it.
     */
    ofMessage(sessionID: string, messageID: string): ReadonlyArray<PermissionRequest>
    /** Replies rejecting every pending ask (to be committed inside the caller's transaction). */
    rejectDrafts(sessionID: string, message?: string): Array<Draft>
  }
}

const toRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

/** The message an ask is rejected with when the turn is interrupted. */
export const INTERRUPTED_REPLY = "the turn was interrupted"

export class Permissions extends Context.Service<Permissions, PermissionsShape>()(
  "@opencode-ai/core/permission/Permissions",
) {
  static readonly layer = Layer.effect(
    Permissions,
    Effect.gen(function* () {
      const bus = yield* Bus
      const { client } = yield* Database
      const config = yield* Config
      const hooks = yield* Hooks
      const waiters = new Map<string, Deferred.Deferred<Answer>>()

      const readSession = client.query<{ id: string }, [string]>("SELECT id FROM session WHERE id = ?")
      const readPending = client.query<{ data: string }, [string]>(
        "SELECT data FROM session_permission WHERE session_id = ? AND reply IS NULL ORDER BY seq",
      )
      const readOne = client.query<{ reply: string | null; message: string | null; session_id: string }, [string]>(
        "SELECT reply, message, session_id FROM session_permission WHERE id = ?",
      )
      const readAllPending = client.query<{ data: string }, []>(
        "SELECT data FROM session_permission WHERE reply IS NULL ORDER BY json_extract(data, '$.time'), id",
      )
      // A session and its descendants (the child sessions of its `task` calls, theirs, ...): a parent's
      // view lists and answers its children's asks, since the person watching the parent is the one asked.
      const tree = `WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT s.id FROM session s JOIN tree ON s.parent_id = tree.id)`
      const readTreePending = client.query<{ data: string }, [string]>(
        `${tree} SELECT data FROM session_permission WHERE session_id IN tree AND reply IS NULL
           ORDER BY json_extract(data, '$.time'), id`,
      )
      const readInTree = client.query<{ found: number }, [string, string]>(
        `${tree} SELECT 1 AS found FROM tree WHERE id = ?2`,
      )
      const readOfMessage = client.query<{ data: string }, [string, string]>(
        "SELECT data FROM session_permission WHERE session_id = ? AND message_id = ? ORDER BY seq",
      )
      const readGrants = client.query<{ data: string }, [string]>(
        "SELECT data FROM session_permission WHERE session_id = ? AND reply = 'always' ORDER BY seq",
      )

      const pending = (sessionID: string): ReadonlyArray<PermissionRequest> =>
        readPending.all(sessionID).map((row) => JSON.parse(row.data) as PermissionRequest)

      const rejectDrafts = (sessionID: string, message?: string) =>
        pending(sessionID).map((ask) =>
          draft(SessionEvent.PermissionReplied, {
            requestID: ask.id,
            reply: "reject",
            ...(message !== undefined ? { message } : {}),
          }),
        )

      const wake = (permissionID: string, answer: Answer) => {
        const waiter = waiters.get(permissionID)
        if (waiter) Deferred.doneUnsafe(waiter, Effect.succeed(answer))
      }

      const decide: PermissionsShape["decide"] = Effect.fn("Permissions.decide")(
        ({ sessionID, agentID, tool, input, plan }) =>
          Effect.gen(function* () {
            const key: PermissionKey = plan.permission
            const rule = ruleFor(key, config.data.permission, config.data.agent?.[agentID]?.permission)
            let decision = evaluate(key, rule, plan.patterns, plan.unresolved)
            if (decision === "ask") {
              const grants = readGrants.all(sessionID).map((row) => JSON.parse(row.data) as PermissionRequest)
              const granted = grants.map((grant) => ({
                permission: grant.action,
                patterns: grant.save ?? grant.resources,
              }))
              if (covered(granted, key, plan.patterns)) decision = "allow"
            }
            if (hooks.list("permission").length === 0) return decision
            const event: PermissionEvent = {
              sessionID,
              tool,
              patterns: [...plan.patterns],
              input: structuredClone(input),
              decision,
            }
            yield* hooks.run("permission", event, { timeout: hookTimeout(config.data) })
            const chosen: unknown = event.decision
            return chosen === "allow" || chosen === "deny" || chosen === "ask" ? chosen : decision
          }),
      )

      const implementation = Permissions.of({
        list: Effect.fn("Permissions.list")((sessionID) =>
          Effect.suspend(() =>
            readSession.get(sessionID)
              ? Effect.succeed(readTreePending.all(sessionID).map((row) => JSON.parse(row.data) as PermissionRequest))
              : Effect.fail(new SessionNotFoundError({ sessionID })),
          ),
        ),
        reply: Effect.fn("Permissions.reply")(({ sessionID, requestID: permissionID, reply, message }) =>
          Effect.gen(function* () {
            // The reply is committed to the session that asked, which may be a descendant of `sessionID`.
            const owner = readOne.get(permissionID)?.session_id ?? sessionID
            yield* bus.transact<SessionNotFoundError | PermissionNotFoundError>(owner, () => {
              if (!readSession.get(sessionID)) return { reject: new SessionNotFoundError({ sessionID }) }
              const row = readOne.get(permissionID)
              if (
                !row ||
                row.session_id !== owner ||
                row.reply !== null ||
                (owner !== sessionID && !readInTree.get(sessionID, owner))
              ) {
                return { reject: new PermissionNotFoundError({ sessionID, requestID: permissionID }) }
              }
              return [
                draft(SessionEvent.PermissionReplied, {
                  requestID: permissionID,
                  reply,
                  ...(message !== undefined ? { message } : {}),
                }),
              ]
            })
            wake(permissionID, { reply, ...(message !== undefined ? { message } : {}) })
            return { id: permissionID, reply }
          }),
        ),
        decide,
        ask: Effect.fn("Permissions.ask")((input) =>
          Effect.gen(function* () {
            const permissionID = ascending("per")
            yield* bus
              .commit(input.sessionID, [
                draft(SessionEvent.PermissionAsked, {
                  id: permissionID,
                  action: input.plan.permission,
                  resources: [...input.plan.patterns],
                  // `always` on a file change grants every edit of the session (edit, write and patch share
                  // the kind), as upstream's does; other kinds grant exactly the asked subjects.
                  save: input.plan.permission === "edit" ? ["*"] : [...input.plan.patterns],
                  metadata: { ...input.plan.metadata },
                  source: { type: "tool", messageID: input.messageID, callID: input.callID },
                  itemID: input.itemID,
                  tool: input.tool,
                  title: input.plan.title,
                  input: toRecord(input.input),
                }),
              ])
              .pipe(Effect.orDie)
            return permissionID
          }),
        ),
        answer: Effect.fn("Permissions.answer")((permissionID) =>
          Effect.gen(function* () {
            const deferred = Deferred.makeUnsafe<Answer>()
            waiters.set(permissionID, deferred)
            const row = readOne.get(permissionID)
            // Answered while nobody waited (before a restart, or between ask and wait): use the stored reply.
            if (!row) wake(permissionID, { reply: "reject", message: "the permission request no longer exists" })
            else if (row.reply !== null) {
              wake(permissionID, {
                reply: row.reply as PermissionReply,
                ...(row.message !== null ? { message: row.message } : {}),
              })
            }
            return yield* Deferred.await(deferred)
          }).pipe(Effect.ensuring(Effect.sync(() => waiters.delete(permissionID)))),
        ),
        rejectPending: Effect.fn("Permissions.rejectPending")((sessionID, message = INTERRUPTED_REPLY, options = {}) =>
          Effect.gen(function* () {
            let rejected: ReadonlyArray<string> = []
            yield* bus
              .transact<never>(sessionID, () => {
                const drafts = rejectDrafts(sessionID, message)
                rejected = drafts.map((d) => (d.data as { requestID: string }).requestID)
                return drafts
              })
              .pipe(Effect.orDie)
            if (options.wake !== false) for (const id of rejected) wake(id, { reply: "reject", message })
          }),
        ),
        sync: {
          pending,
          rejectDrafts,
          all: () => readAllPending.all().map((row) => JSON.parse(row.data) as PermissionRequest),
          ofMessage: (sessionID, messageID) =>
            readOfMessage.all(sessionID, messageID).map((row) => JSON.parse(row.data) as PermissionRequest),
        },
      })
      return implementation
    }),
  )
}
