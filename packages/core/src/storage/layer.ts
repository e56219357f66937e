import { Layer } from "effect"
import { Blobs } from "./blobs.ts"
import { Database } from "./database.ts"
import { Stats } from "./stats.ts"

/**
 * Storage alone: the SQLite file, the before-image blob store beside it and the storage report. It knows
 * no session service; the host (`host.ts`) puts the bus, projectors and read model on top of it.
 */
export const StorageLayer = (options: { readonly path: string }) =>
  Layer.mergeAll(Stats.layer, Blobs.layer).pipe(Layer.provideMerge(Database.layer(options.path)))
