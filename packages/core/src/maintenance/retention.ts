import { RetentionSummary } from "@opencode-ai/schema"
import { Clock, Context, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { admitMutation } from "../turn/admission.ts"
import { SessionEvent } from "../domain/event.ts"
import { Prune } from "./prune.ts"
import { Session } from "../session/session.ts"
import { Sqlite } from "../platform/sqlite.ts"
import { Database } from "../storage/database.ts"
import { captureSnapshot } from "../storage/journal-base.ts"

export { RetentionSummary }

/** `storage.retention`, each age in milliseconds; an absent one is not applied. */
export interface RetentionPolicy {
  readonly prune?: number
  readonly delete?: number
  readonly journal?: number
}

/** What a run would do, session by session (`db retention --dry-run`). */
export interface RetentionPlan {
  readonly time: number
  readonly prune: ReadonlyArray<{ readonly sessionID: string; readonly messages: number; readonly items: number }>
  readonly delete: ReadonlyArray<{ readonly sessionID: string; readonly updated: number }>
  readonly journal: ReadonlyArray<{ readonly sessionID: string; readonly events: number; readonly bytes: number }>
}

/**
 * Work between two yields to the event loop. Each unit inside (one prune batch, one deletion, one journal
 * chunk) is its own short transaction; after this much time the run lets requests and turns go first.
 */
const SLICE_MS = 20
/** Messages pruned per transaction. */
const PRUNE_MESSAGES = 50
/** Journal rows deleted per transaction. */
const JOURNAL_ROWS = 2_000
/**
 * Lets timers and I/O (requests, turns) run before the next batch. A macrotask, not `Effect.sleep`: the
 * schedule's clock may be a test's, and a yield must not wait for it to move.
 */
const yieldToEventLoop = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
/** Sessions read per page while looking for work. */
const PAGE = 200
/** Free pages handed back to the file system per step. */
const VACUUM_PAGES = 512
/** How often a run has the WAL checkpointed off the host's thread. */
const CHECKPOINT_MS = 250
/** SQLite's default `wal_autocheckpoint`, restored after a run. */
const AUTOCHECKPOINT = 1_000

export interface RetentionShape {
  /** What `run` would do now (`now`, else Effect's clock), changing nothing. */
  plan(policy: RetentionPolicy, options?: { readonly now?: number }): Effect.Effect<RetentionPlan>
  /**
   * Applies the policy in short batches (see `SLICE_MS`), yielding to the event loop between them:
   * prunes, then deletes, then compacts journals; frees the pages; records the summary (`db stats`).
   */
  run(policy: RetentionPolicy, options?: { readonly now?: number }): Effect.Effect<RetentionSummary>
  /** The last recorded run, if any. */
  last(): RetentionSummary | undefined
}

export class Retention extends Context.Service<Retention, RetentionShape>()("@opencode-ai/core/storage/Retention") {
  static readonly layer = Layer.effect(
    Retention,
    Effect.gen(function* () {
      const database = yield* Database
      const { checkpointer } = yield* Sqlite
      const bus = yield* Bus
      const session = yield* Session
      const prune = yield* Prune
      const { client } = database

      const sessionsAfter = client.query<
        { id: string; seq: number; time_updated: number; claimed: number },
        [string, number]
      >(
        `SELECT s.id, s.seq, s.time_updated,
           EXISTS (SELECT 1 FROM session_execution e WHERE e.session_id = s.id) AS claimed
         FROM session s WHERE s.id > ? ORDER BY s.id LIMIT ?`,
      )
      const prunable = client.query<{ messages: number; items: number }, [string, number]>(
        `SELECT count(DISTINCT m.id) AS messages, count(*) AS items
         FROM session_message m, json_each(m.data, '$.content') i
         WHERE m.session_id = ?1 AND m.type = 'assistant'
           AND json_extract(m.data, '$.time.completed') < ?2
           AND i.value ->> '$.type' IN ('tool', 'reasoning')
           AND i.value -> '$.time.pruned' IS NULL`,
      )
      const baseOf = client.query<{ seq: number }, [string]>("SELECT seq FROM journal_base WHERE session_id = ?")
      const journalOf = client.query<{ events: number; bytes: number }, [string, number]>(
        "SELECT count(*) AS events, coalesce(sum(length(CAST(data AS BLOB))), 0) AS bytes FROM event WHERE aggregate_id = ? AND seq <= ?",
      )
      const writeBase = client.query<unknown, [string, number, number, string]>(
        "INSERT INTO journal_base (session_id, seq, time, snapshot) VALUES (?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, time = excluded.time, snapshot = excluded.snapshot",
      )
      const dropBase = client.query<unknown, [string]>("DELETE FROM journal_base WHERE session_id = ?")
      const dropEvents = client.query<{ bytes: number }, [string, number, number]>(
        `DELETE FROM event WHERE position IN
           (SELECT position FROM event WHERE aggregate_id = ? AND seq <= ? ORDER BY seq LIMIT ?)
         RETURNING length(CAST(data AS BLOB)) AS bytes`,
      )
      const record = client.query<unknown, [number, string]>("INSERT INTO retention_run (time, summary) VALUES (?, ?)")
      const lastRun = client.query<{ summary: string }, []>(
        "SELECT summary FROM retention_run ORDER BY position DESC LIMIT 1",
      )
      const freePages = client.query<{ freelist_count: number }, []>("PRAGMA freelist_count")

      /** Calls `visit` for every session, a page at a time, yielding to the event loop between slices. */
      const eachSession = (
        visit: (row: { id: string; seq: number; time_updated: number; claimed: number }) => Effect.Effect<void>,
      ) =>
        Effect.gen(function* () {
          let after = ""
          let slice = performance.now()
          for (;;) {
            const rows = sessionsAfter.all(after, PAGE)
            if (rows.length === 0) return
            for (const row of rows) {
              yield* visit(row)
              if (performance.now() - slice >= SLICE_MS) {
                yield* yieldToEventLoop
                slice = performance.now()
              }
            }
            after = rows.at(-1)!.id
            yield* yieldToEventLoop
            slice = performance.now()
          }
        })

      const plan = (policy: RetentionPolicy, now: number) =>
        Effect.gen(function* () {
          const result = { time: now, prune: [], delete: [], journal: [] } as {
            time: number
            prune: Array<RetentionPlan["prune"][number]>
            delete: Array<RetentionPlan["delete"][number]>
            journal: Array<RetentionPlan["journal"][number]>
          }
          yield* eachSession((row) =>
            Effect.sync(() => {
              if (row.claimed) return
              if (policy.delete !== undefined && row.time_updated < now - policy.delete) {
                result.delete.push({ sessionID: row.id, updated: row.time_updated })
                return
              }
              if (policy.prune !== undefined) {
                const found = prunable.get(row.id, now - policy.prune)!
                if (found.items > 0) result.prune.push({ sessionID: row.id, ...found })
              }
              if (policy.journal !== undefined && bus.persist && row.time_updated < now - policy.journal) {
                const base = baseOf.get(row.id)?.seq ?? 0
                if (base < row.seq) {
                  const journal = journalOf.get(row.id, row.seq)!
                  if (journal.events > 0) result.journal.push({ sessionID: row.id, ...journal })
                }
              }
            }),
          )
          return result as RetentionPlan
        })

      /** Deletes the journal rows of `sessionID` up to `seq`, a chunk per transaction. */
      const dropJournal = (sessionID: string, seq: number) =>
        Effect.gen(function* () {
          const dropped = { events: 0, bytes: 0 }
          for (;;) {
            const rows = database.immediate(() => dropEvents.all(sessionID, seq, JOURNAL_ROWS))
            dropped.events += rows.length
            for (const row of rows) dropped.bytes += row.bytes
            if (rows.length < JOURNAL_ROWS) return dropped
            yield* yieldToEventLoop
          }
        })

      const summaryOf = (
        now: number,
        dryRun: boolean,
      ): RetentionSummary & {
        pruned: { sessions: number; messages: number; items: number; bytes: number }
        deleted: { sessions: number }
        journal: { sessions: number; events: number; bytes: number }
      } => ({
        time: now,
        dryRun,
        pruned: { sessions: 0, messages: 0, items: 0, bytes: 0 },
        deleted: { sessions: 0 },
        journal: { sessions: 0, events: 0, bytes: 0 },
      })

      /**
       * While a run writes, the host's connection does not checkpoint by itself (a checkpoint's sync would
       * stall every request for its length): a worker does, every CHECKPOINT_MS, and once at the end.
       */
      const offThread = <A>(work: (tick: () => Effect.Effect<void>) => Effect.Effect<A>) =>
        database.path === ":memory:" || checkpointer === undefined
          ? work(() => Effect.void)
          : Effect.acquireUseRelease(
              Effect.sync(() => {
                client.run("PRAGMA wal_autocheckpoint = 0")
                return { checkpointer: checkpointer(database.path), last: performance.now() }
              }),
              (state) =>
                work(() =>
                  Effect.sync(() => {
                    if (performance.now() - state.last < CHECKPOINT_MS) return
                    state.last = performance.now()
                    void state.checkpointer.request()
                  }),
                ).pipe(Effect.tap(() => Effect.promise(() => state.checkpointer.request()))),
              (state) =>
                Effect.sync(() => {
                  state.checkpointer.close()
                  client.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT}`)
                }),
            )

      const run = (policy: RetentionPolicy, now: number) => offThread((tick) => apply(policy, now, tick))

      const apply = (policy: RetentionPolicy, now: number, tick: () => Effect.Effect<void>) =>
        Effect.gen(function* () {
          const todo = yield* plan(policy, now)
          const summary = summaryOf(now, false)
          if (policy.prune !== undefined) {
            for (const { sessionID } of todo.prune) {
              let touched = false
              for (;;) {
                // Busy (a turn started since the plan) or gone: left for the next run.
                const done = yield* prune
                  .session({
                    sessionID,
                    types: ["tool", "reasoning"],
                    by: "host",
                    completedBefore: now - policy.prune,
                    limit: PRUNE_MESSAGES,
                    noReclaim: true,
                  })
                  .pipe(Effect.orElseSucceed(() => ({ sessionID, messages: 0, items: 0, bytes: 0 })))
                summary.pruned.messages += done.messages
                summary.pruned.items += done.items
                summary.pruned.bytes += done.bytes
                if (done.items > 0) touched = true
                yield* tick()
                yield* yieldToEventLoop
                if (done.messages < PRUNE_MESSAGES) break
              }
              if (touched) summary.pruned.sessions++
            }
          }
          for (const { sessionID } of todo.delete) {
            // Deleted under the mutation rules, so a session a turn claimed since the plan is left alone.
            const deleted = yield* bus
              .transact(sessionID, () =>
                admitMutation<never>(session.sync, sessionID, () => [draft(SessionEvent.Deleted, {})]),
              )
              .pipe(Effect.orElseSucceed(() => []))
            const event = deleted[0]
            if (!event) continue
            summary.deleted.sessions++
            // Nothing of a deleted session is projected; its journal keeps only the deletion, which still
            // reserves the id (a new session cannot take it) and replays to nothing.
            if (bus.persist) {
              const dropped = yield* dropJournal(sessionID, event.seq - 1)
              database.immediate(() => dropBase.run(sessionID))
              summary.journal.events += dropped.events
              summary.journal.bytes += dropped.bytes
            }
            yield* tick()
            yield* yieldToEventLoop
          }
          for (const { sessionID } of todo.journal) {
            // The snapshot and its seq are taken in one transaction, against a session no turn holds;
            // events up to that seq then leave the journal in chunks. Replay skips them meanwhile.
            const base = database.immediate(() => {
              const row = session.sync.row(sessionID)
              if (!row || session.sync.claimed(sessionID)) return undefined
              writeBase.run(sessionID, row.seq, now, JSON.stringify(captureSnapshot(client, sessionID)))
              return row.seq
            })
            if (base === undefined) continue
            const dropped = yield* dropJournal(sessionID, base)
            summary.journal.sessions++
            summary.journal.events += dropped.events
            summary.journal.bytes += dropped.bytes
            yield* tick()
            yield* yieldToEventLoop
          }
          // Hand the freed pages back a step at a time (a whole incremental vacuum can take long).
          if (database.path !== ":memory:") {
            while (freePages.get()!.freelist_count > 0) {
              const before = freePages.get()!.freelist_count
              client.query(`PRAGMA incremental_vacuum(${VACUUM_PAGES})`).all()
              if (freePages.get()!.freelist_count >= before) break
              yield* tick()
              yield* yieldToEventLoop
            }
          }
          database.immediate(() => record.run(now, JSON.stringify(summary)))
          return summary as RetentionSummary
        })

      /** The time ages are measured from: given, else Effect's clock (a test's `TestClock` moves it). */
      const clock = (options?: { readonly now?: number }) =>
        options?.now !== undefined ? Effect.succeed(options.now) : Clock.currentTimeMillis

      const implementation = Retention.of({
        plan: Effect.fn("Retention.plan")((policy, options) =>
          Effect.flatMap(clock(options), (now) => plan(policy, now)),
        ),
        run: Effect.fn("Retention.run")((policy, options) => Effect.flatMap(clock(options), (now) => run(policy, now))),
        last: () => {
          const row = lastRun.get()
          return row ? (JSON.parse(row.summary) as RetentionSummary) : undefined
        },
      })
      return implementation
    }),
  )
}
