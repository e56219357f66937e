import type { FileDiff, RevertConflict, RevertRestored, RevertState } from "@opencode-ai/schema"
import { Context, Effect, Layer, Semaphore } from "effect"
import { Bus, type Decision } from "../bus/bus.ts"
import { draft, type Draft } from "../bus/event.ts"
import { Blobs, blobRef } from "../storage/blobs.ts"
import { Database } from "../storage/database.ts"
import { capDiff, unifiedDiff } from "../tool/diff.ts"
import { type FileChange, readTextFile, writeFiles } from "../tool/files.ts"
import { resolveWritable, sessionRoot } from "../tool/path.ts"
import type { FileRecord } from "../tool/tool.ts"
import { admitMutation } from "../turn/admission.ts"
import { type BusyError, InvalidTargetError, MessageNotFoundError, type SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import type { Message } from "../domain/message.ts"
import { rowRevert, Session } from "../session/session.ts"

/**
 * Revert: undo a session's work back to a message (`stage`, `clear`, `commit`), each admitted like a
 * mutation and committed as one durable event. Files changed outside the session since are left alone
 * (docs/storage.md).
 */
export interface RevertShape {
  /** Stages (or moves) the revert to just after `messageID`; `files: false` hides messages only. */
  stage(input: {
    readonly sessionID: string
    readonly messageID: string
    readonly files?: boolean
  }): Effect.Effect<RevertState, SessionNotFoundError | MessageNotFoundError | BusyError | InvalidTargetError>
  /** Undoes the staged revert (nothing staged: nothing to do); answers the files it left alone. */
  clear(input: {
    readonly sessionID: string
  }): Effect.Effect<ReadonlyArray<RevertConflict>, SessionNotFoundError | BusyError | InvalidTargetError>
  /** Makes the staged revert final: its hidden messages are removed (nothing staged: nothing to do). */
  commit(input: { readonly sessionID: string }): Effect.Effect<void, SessionNotFoundError | BusyError>
}

/** One file to restore: its first recorded before-image after the boundary, and what the session last wrote. */
interface Target {
  readonly path: string
  readonly before: string | null
  after: string | null
}

const isRecord = (value: unknown): value is FileRecord =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as FileRecord).path === "string" &&
  ((value as FileRecord).before === null || typeof (value as FileRecord).before === "string") &&
  ((value as FileRecord).after === null || typeof (value as FileRecord).after === "string")

/** What the tool calls of these messages changed, per file, in call order. */
const targetsOf = (messages: ReadonlyArray<Message>): Map<string, Target> => {
  const targets = new Map<string, Target>()
  for (const message of messages) {
    if (message.type !== "assistant") continue
    for (const item of message.content) {
      if (item.type !== "tool" || item.state.status !== "completed") continue
      const files = (item.state.structured as { files?: unknown } | undefined)?.files
      if (!Array.isArray(files)) continue
      for (const record of files) {
        if (!isRecord(record)) continue
        const known = targets.get(record.path)
        if (known) known.after = record.after
        else targets.set(record.path, { path: record.path, before: record.before, after: record.after })
      }
    }
  }
  return targets
}

/** Characters of diff a revert keeps for all its files together (`files[].patch`). */
const PATCH_BUDGET = 256 * 1024

const describe = (error: unknown) =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

const countLines = (patch: string, sign: "+" | "-") =>
  patch.split("\n").filter((line) => line.startsWith(sign) && !line.startsWith(`${sign}${sign}${sign} `)).length

export class Revert extends Context.Service<Revert, RevertShape>()("@opencode-ai/core/session/Revert") {
  static readonly layer = Layer.effect(
    Revert,
    Effect.gen(function* () {
      const bus = yield* Bus
      const session = yield* Session
      const blobs = yield* Blobs
      const { client } = yield* Database
      const reads = session.sync
      // Reverts are rare and do file work between their admission check and their commit: one at a time.
      const lock = yield* Semaphore.make(1)
      const readRange = client.query<{ data: string }, [string, number, number]>(
        "SELECT data FROM session_message WHERE session_id = ? AND type = 'assistant' AND seq > ? AND seq <= ? ORDER BY seq",
      )

      /** Rejects early (not found, busy) the way the commit's own decision would. */
      const precheck = <E>(sessionID: string, build: () => Decision<E>) => {
        const decision = admitMutation(reads, sessionID, build)
        return Array.isArray(decision) ? Effect.void : Effect.fail((decision as { reject: E }).reject)
      }

      const commitDrafts = <E>(sessionID: string, decide: () => Decision<E>) =>
        bus.transact(sessionID, () => admitMutation(reads, sessionID, decide))

      /**
       * Writes each path's `want` content (`undefined`: removes it) where the file still holds `expect`
       * (a reference, `null`: missing); the others are conflicts. All the writes are one all-or-nothing
       * `writeFiles`, confined to the session directory as the tools' own writes are.
       */
      const restore = (
        directory: string,
        entries: ReadonlyArray<{
          readonly path: string
          readonly expect: string | null
          readonly want: string | null
          /** Keep what is there now (answered as `staged`). */
          readonly keep: boolean
          readonly changedReason: string
        }>,
      ) =>
        Effect.gen(function* () {
          const conflicts: Array<RevertConflict> = []
          const restored: Array<RevertRestored> = []
          const files: Array<FileDiff> = []
          const pinned: Array<string> = []
          if (entries.length === 0) return { conflicts, restored, files, pinned }
          const root = yield* sessionRoot("revert", directory).pipe(Effect.mapError((error) => error.message))
          const changes: Array<FileChange> = []
          const previous = new Map<string, string | undefined>()
          yield* Effect.tryPromise({
            try: async () => {
              // Every file is checked concurrently (reads only); the writes below are one all-or-nothing step.
              type Checked =
                | { readonly conflict: RevertConflict }
                | { readonly path: string; readonly current: string | undefined; readonly content: string | undefined }
                | undefined
              const check = async (entry: (typeof entries)[number]): Promise<Checked> => {
                const resolved = await Effect.runPromise(
                  Effect.result(resolveWritable("revert", directory, entry.path)),
                )
                if (resolved._tag === "Failure")
                  return { conflict: { path: entry.path, reason: resolved.failure.message } }
                const path = resolved.success.path
                let current: string | undefined
                try {
                  current = await readTextFile("revert", path, entry.path)
                } catch (error) {
                  return { conflict: { path: entry.path, reason: describe(error) } }
                }
                const now = current === undefined ? null : blobRef(current)
                if (now === entry.want) return undefined
                if (now !== entry.expect) return { conflict: { path: entry.path, reason: entry.changedReason } }
                const content = entry.want === null ? undefined : await blobs.get(entry.want)
                if (entry.want !== null && content === undefined)
                  return { conflict: { path: entry.path, reason: "its before-image is no longer stored" } }
                return { path, current, content }
              }
              const checked = await Promise.all(entries.map(check))
              let budget = PATCH_BUDGET
              for (const [index, result] of checked.entries()) {
                if (result === undefined) continue
                if ("conflict" in result) {
                  conflicts.push(result.conflict)
                  continue
                }
                const entry = entries[index]!
                const { path, current, content } = result
                let staged: string | null = null
                if (entry.keep && current !== undefined) {
                  staged = await blobs.put(current)
                  pinned.push(staged)
                }
                changes.push({ path, requested: entry.path, shown: entry.path, after: content })
                previous.set(path, current)
                restored.push({ path: entry.path, image: entry.want, staged })
                // The change being undone: from what is restored to what is there now. The patches share one
                // budget: the revert is stored on the session row, which every session read parses.
                const full = budget > 0 ? capDiff(unifiedDiff(entry.path, content, current)) : ""
                const patch = full.length <= budget ? full : `${full.slice(0, budget)}\n... [diff truncated] ...\n`
                budget -= patch.length
                files.push({
                  path: entry.path,
                  status: current === undefined ? "deleted" : content === undefined ? "added" : "modified",
                  additions: countLines(patch, "+"),
                  deletions: countLines(patch, "-"),
                  patch,
                })
              }
              if (changes.length > 0) await writeFiles("revert", root, changes, previous)
            },
            catch: (error) => {
              blobs.release(pinned)
              return `cannot restore files: ${describe(error)}`
            },
          })
          return { conflicts, restored, files, pinned }
        }).pipe(
          Effect.mapError(
            (reason) =>
              new InvalidTargetError({ sessionID: "", messageID: "", reason: `${reason}; nothing was changed` }),
          ),
        )

      /** Puts back what a staged revert replaced (the clear of its files). */
      const unstage = (directory: string, revert: RevertState) =>
        restore(
          directory,
          (revert.restored ?? []).map((entry) => ({
            path: entry.path,
            expect: entry.image,
            want: entry.staged,
            keep: false,
            changedReason: "changed since the revert was staged",
          })),
        )

      const fix = (sessionID: string, messageID: string) => (error: InvalidTargetError) =>
        new InvalidTargetError({ sessionID, messageID, reason: error.reason })

      const stage: RevertShape["stage"] = ({ sessionID, messageID, files = true }) =>
        Effect.gen(function* () {
          yield* precheck(sessionID, () =>
            reads.message(sessionID, messageID) ? [] : { reject: new MessageNotFoundError({ sessionID, messageID }) },
          )
          const row = reads.row(sessionID)!
          const boundary = reads.message(sessionID, messageID)!
          const directory = row.directory
          const current = rowRevert(row)
          const drafts: Array<Draft> = []
          const pinned: Array<string> = []
          // Moving a staged revert: its files go back first, then the new range is restored from there.
          // (Whatever `files` says now: what the staged revert restored goes back before the boundary moves.)
          if (current) {
            const undone = yield* unstage(directory, current).pipe(Effect.mapError(fix(sessionID, messageID)))
            drafts.push(
              draft(SessionEvent.RevertCleared, undone.conflicts.length > 0 ? { conflicts: undone.conflicts } : {}),
            )
          }
          const through = row.seq
          const later = readRange.all(sessionID, boundary.seq, through).map((r) => JSON.parse(r.data) as Message)
          const targets = files ? [...targetsOf(later).values()] : []
          const done = yield* restore(
            directory,
            targets.map((target) => ({
              path: target.path,
              expect: target.after,
              want: target.before,
              keep: true,
              changedReason: "changed outside the session since the session last wrote it",
            })),
          ).pipe(Effect.mapError(fix(sessionID, messageID)))
          pinned.push(...done.pinned)
          const revert: RevertState = {
            messageID,
            files: done.files,
            seq: boundary.seq,
            through,
            restored: done.restored,
            conflicts: done.conflicts,
          }
          drafts.push(draft(SessionEvent.RevertStaged, { revert }))
          const committed = yield* Effect.result(
            commitDrafts(sessionID, () =>
              reads.message(sessionID, messageID)
                ? drafts
                : { reject: new MessageNotFoundError({ sessionID, messageID }) },
            ),
          )
          blobs.release(pinned)
          if (committed._tag === "Failure") {
            // A turn started meanwhile: the files go back to what they were before this call.
            yield* unstage(directory, revert).pipe(
              Effect.ignore({ log: "Warn", message: `revert: restoring the files of ${sessionID} failed` }),
            )
            return yield* Effect.fail(committed.failure)
          }
          return revert
        })

      const clear: RevertShape["clear"] = ({ sessionID }) =>
        Effect.gen(function* () {
          yield* precheck<never>(sessionID, () => [])
          const row = reads.row(sessionID)!
          const current = rowRevert(row)
          if (!current) return []
          const undone = yield* unstage(row.directory, current).pipe(Effect.mapError(fix(sessionID, current.messageID)))
          const conflicts = undone.conflicts
          yield* commitDrafts<never>(sessionID, () =>
            reads.row(sessionID)?.revert === row.revert
              ? [draft(SessionEvent.RevertCleared, conflicts.length > 0 ? { conflicts } : {})]
              : [],
          )
          return conflicts
        })

      const commit: RevertShape["commit"] = ({ sessionID }) =>
        Effect.asVoid(
          commitDrafts<never>(sessionID, () => {
            const current = rowRevert(reads.row(sessionID)!)
            if (!current) return []
            return [
              draft(SessionEvent.RevertCommitted, {
                messageID: current.messageID,
                after: current.seq ?? Number.MAX_SAFE_INTEGER,
                through: current.through ?? 0,
              }),
            ]
          }),
        )

      const implementation = Revert.of({
        stage: Effect.fn("Revert.stage")((input) => lock.withPermits(1)(stage(input))),
        clear: Effect.fn("Revert.clear")((input) => lock.withPermits(1)(clear(input))),
        commit: Effect.fn("Revert.commit")((input) => lock.withPermits(1)(commit(input))),
      })
      return implementation
    }),
  )
}
