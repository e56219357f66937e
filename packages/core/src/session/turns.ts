import { Context, type Deferred, type Fiber, Layer } from "effect"

/**
 * A turn this process is running for a session: its id, its loop fiber, and a latch opened when it ends.
 * The entry is created in the transaction that writes the claim and removed in the one that releases it,
 * so it exists exactly while this process holds the claim.
 */
export interface Turn {
  turnID: string
  fiber?: Fiber.Fiber<void, unknown>
  readonly idle: Deferred.Deferred<void>
  /** Set by an interrupt that arrived before the loop fiber was forked: the loop stops before its turn. */
  stopped?: boolean
  /** Set while the turn waits to retry a failed model request (status `retrying`). */
  retrying?: boolean
}

/**
 * The turns running in this process, by session. `Execution` owns the entries; readers (the session read
 * model's `status`) only ask whether one exists. A durable claim without an entry here is a turn a
 * previous process left behind: suspended, awaiting resume.
 */
export class Turns extends Context.Service<Turns, Map<string, Turn>>()("@opencode-ai/core/session/Turns") {
  static readonly layer = Layer.sync(Turns, () => new Map<string, Turn>())
}
