import { Context, Deferred, Effect, Fiber, Layer } from "effect"

/**
 * A turn this process is running for a session: its id and whether an interrupt has asked it to stop.
 * `Turns` owns the entry (only the service changes it); callers hold it as a handle for their loop.
 */
export interface Turn {
  /** The claim's turn id; a loop that continues with the next queued input moves to the next turn's id. */
  readonly turnID: string
  /** Set by an interrupt that arrived before the loop fiber was forked: the loop stops before its turn. */
  readonly stopped: boolean
  /** Set while the turn waits to retry a failed model request (status `retrying`). */
  readonly retrying: boolean
}

/** What this process knows of a session's turn: running, waiting to retry a model request, or none here. */
export type TurnState = "running" | "retrying"

/** The entry behind a `Turn` handle: the loop fiber and the latch opened when the loop has let go. */
interface Entry {
  turnID: string
  stopped: boolean
  retrying: boolean
  fiber?: Fiber.Fiber<void, unknown>
  readonly idle: Deferred.Deferred<void>
}

export interface TurnsShape {
  /**
   * Registers the turn this process starts for a session. Synchronous on purpose: it is called inside the
   * transaction callback that writes the durable claim, with no yield in between, so the entry and the claim
   * can never be seen apart. Refused (undefined) while the session already has an entry.
   */
  readonly claim: (sessionID: string, turnID: string) => Turn | undefined
  /** Moves a running loop's entry on to the next turn it was granted (same synchronous step as the grant). */
  readonly advance: (turn: Turn, turnID: string) => void
  /**
   * Removes the entry in the transaction that releases its claim, when it is still the session's current
   * one; returns whether it was. The latch stays closed until `finish`, called once the release committed.
   */
  readonly release: (sessionID: string, turn: Turn) => boolean
  /** The loop of `turn` is over (or never started): drops the entry if still current and opens its latch. */
  readonly finish: (sessionID: string, turn: Turn) => void
  /** Binds the forked loop fiber to its entry; the entry is finished when the fiber exits, however it exits. */
  readonly attach: (sessionID: string, turn: Turn, fiber: Fiber.Fiber<void, unknown>) => void
  /** Marks the session's running turn as waiting to retry a model request (or as going on again). */
  readonly retrying: (sessionID: string, retrying: boolean) => void
  /** The session's turn in this process, if one runs here. */
  readonly current: (sessionID: string) => Turn | undefined
  /** Whether a turn of this session runs here; `retrying` while it waits to retry a model request. */
  readonly status: (sessionID: string) => TurnState | undefined
  /** The sessions with a turn running here. */
  readonly sessions: () => ReadonlyArray<string>
  /**
   * Stops a turn and waits until its loop has let go: a forked loop is interrupted, one not forked yet is
   * marked `stopped` so it ends before its turn runs.
   */
  readonly interrupt: (turn: Turn) => Effect.Effect<void>
  /** Completes when no turn of this session runs here. */
  readonly idle: (sessionID: string) => Effect.Effect<void>
}

/**
 * The turns running in this process, by session. `Execution` claims and releases them in the transactions
 * that write and release the durable claim; the retry wait marks them `retrying`; the session read model asks
 * for their status. A durable claim without an entry here is a turn a previous process left behind:
 * suspended, awaiting resume.
 */
export class Turns extends Context.Service<Turns, TurnsShape>()("@opencode-ai/core/session/Turns") {
  static readonly layer = Layer.sync(Turns, () => {
    const entries = new Map<string, Entry>()
    // Handles are the entries themselves, typed read-only for callers.
    const entry = (turn: Turn) => turn as Entry
    const finish = (sessionID: string, turn: Turn) => {
      if (entries.get(sessionID) === turn) entries.delete(sessionID)
      Deferred.doneUnsafe(entry(turn).idle, Effect.void)
    }
    return Turns.of({
      claim: (sessionID, turnID) => {
        if (entries.has(sessionID)) return undefined
        const created: Entry = { turnID, stopped: false, retrying: false, idle: Deferred.makeUnsafe<void>() }
        entries.set(sessionID, created)
        return created
      },
      advance: (turn, turnID) => {
        entry(turn).turnID = turnID
      },
      release: (sessionID, turn) => {
        if (entries.get(sessionID) !== turn) return false
        entries.delete(sessionID)
        return true
      },
      finish,
      attach: (sessionID, turn, fiber) => {
        fiber.addObserver(() => finish(sessionID, turn))
        entry(turn).fiber = fiber
      },
      retrying: (sessionID, retrying) => {
        const current = entries.get(sessionID)
        if (current) current.retrying = retrying
      },
      current: (sessionID) => entries.get(sessionID),
      status: (sessionID) => {
        const current = entries.get(sessionID)
        if (!current) return undefined
        return current.retrying ? "retrying" : "running"
      },
      sessions: () => [...entries.keys()],
      interrupt: (turn) =>
        Effect.gen(function* () {
          const stopping = entry(turn)
          stopping.stopped = true
          if (stopping.fiber) yield* Fiber.interrupt(stopping.fiber)
          yield* Deferred.await(stopping.idle)
        }),
      idle: (sessionID) =>
        Effect.suspend(() => {
          const current = entries.get(sessionID)
          return current ? Deferred.await(current.idle) : Effect.void
        }),
    })
  })
}
