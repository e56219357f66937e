import { Effect, Layer } from "effect"
import picomatch from "picomatch"
import initSqlJs from "sql.js"
import { Glob, type GlobShape } from "./glob.ts"
import { Heap } from "./heap.ts"
import { nodeProcesses } from "./node-processes.ts"
import { nodeSqlite } from "./node-sqlite.ts"
import { Processes } from "./processes.ts"
import { Sqlite } from "./sqlite.ts"

const nodeGlob: GlobShape = {
  runtime: "node",
  // Bun.Glob's `*` also matches names that start with a dot; picomatch needs `dot` for that.
  compile: (pattern) => picomatch(pattern, { dot: true }),
}

/**
 * The platform on plain Node (20 and later): SQLite compiled to WebAssembly (sql.js; see `node-sqlite.ts`
 * for what that driver cannot do), `node:child_process`, picomatch, and `global.gc` when Node runs with
 * `--expose-gc`. Loading the WebAssembly module is why this layer is an effect.
 */
export const NodePlatform = Layer.mergeAll(
  Layer.effect(
    Sqlite,
    Effect.map(
      Effect.promise(() => initSqlJs()),
      nodeSqlite,
    ),
  ),
  Layer.succeed(Processes, nodeProcesses()),
  Layer.succeed(Glob, nodeGlob),
  Layer.succeed(Heap, {
    runtime: "node",
    collect: () => (globalThis as { gc?: () => void }).gc?.(),
  }),
)
