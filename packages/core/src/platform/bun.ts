import { Layer } from "effect"
import { Glob } from "./glob.ts"
import { Heap } from "./heap.ts"
import { Modules } from "./modules.ts"
import { Processes } from "./processes.ts"
import { Sqlite } from "./sqlite.ts"

/**
 * The platform on Bun, stated explicitly. Each platform service already defaults to Bun's implementation,
 * so providing this changes nothing on Bun; it is what an edge writes to say so, and what a test uses to
 * compare the platforms.
 */
export const BunPlatform = Layer.mergeAll(
  Layer.succeed(Sqlite, Sqlite.defaultValue()),
  Layer.succeed(Processes, Processes.defaultValue()),
  Layer.succeed(Glob, Glob.defaultValue()),
  Layer.succeed(Heap, Heap.defaultValue()),
  Layer.succeed(Modules, Modules.defaultValue()),
)
