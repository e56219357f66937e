import { Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { Erase } from "../session/erase.ts"
import { ProjectorsLive } from "../session/projector.ts"
import { Prune } from "../session/prune.ts"
import { Session } from "../session/session.ts"
import { Transfer } from "../session/transfer.ts"
import { Turns } from "../session/turns.ts"
import { Blobs } from "./blobs.ts"
import { Database } from "./database.ts"
import { Retention } from "./retention.ts"
import { Stats } from "./stats.ts"

export interface StoreOptions {
  /** SQLite file path, or `:memory:`. */
  readonly path: string
  /** Whether committed events are also appended to the journal (`events.persist`). */
  readonly persist: boolean
}

/** The event-sourced store: database, projectors, bus and the session read model, wired together. */
export const StoreLayer = (options: StoreOptions) => {
  const database = Database.layer(options.path)
  const bus = Bus.layer({ persist: options.persist }).pipe(Layer.provide(ProjectorsLive))
  return Layer.mergeAll(Session.layer, Stats.layer, Blobs.layer).pipe(
    Layer.provideMerge(bus),
    Layer.provideMerge(database),
    Layer.provideMerge(Turns.layer),
  )
}

/**
 * The store plus prune, erase, export/import and retention, without turns, providers or plugins: what maintenance commands need to
 * work on a database file directly.
 */
export const MaintenanceLayer = (options: StoreOptions) =>
  Retention.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(Prune.layer, Erase.layer, Transfer.layer)),
    Layer.provideMerge(StoreLayer(options)),
  )
