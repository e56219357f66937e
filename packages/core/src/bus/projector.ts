import { Context } from "effect"
import type { Durable, Envelope } from "./event.ts"

/**
 * The projection side of the bus: every durable event type the host knows, and the function that
 * applies one committed event to the projection tables. Runs inside the commit transaction, so it
 * must be synchronous; a throw rolls the whole commit back.
 */
export interface ProjectorSet {
  readonly definitions: ReadonlyArray<Durable>
  project(event: Envelope): void
  /** The last committed seq of an aggregate (0 when it has none); read inside the commit transaction. */
  currentSeq(aggregateID: string): number
}

export class Projectors extends Context.Service<Projectors, ProjectorSet>()("@opencode-ai/core/bus/Projectors") {}
