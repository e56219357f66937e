import { Effect, Layer } from "effect"
import { createRequire } from "node:module"
import { join } from "node:path"
import picomatch from "picomatch"
import initSqlJs from "sql.js"
import { Glob } from "./glob.ts"
import type { GlobShape } from "./glob-shape.ts"
import { Heap } from "./heap.ts"
import { Modules } from "./modules.ts"
import type { ModulesShape } from "./modules-shape.ts"
import { nodeProcesses } from "./node-processes.ts"
import { nodeSqlite } from "./node-sqlite.ts"
import { Processes } from "./processes.ts"
import { Sqlite } from "./sqlite.ts"

const nodeGlob: GlobShape = {
  runtime: "node",
  // Bun.Glob's `*` also matches names that start with a dot; picomatch needs `dot` for that.
  compile: (pattern) => picomatch(pattern, { dot: true }),
}

const nodeModules: ModulesShape = {
  runtime: "node",
  // `createRequire` needs a file to resolve from; the file need not exist, only its directory matters.
  // Node's resolver takes the `require` export conditions here (Bun's takes `import`): a package that
  // exports only an `import` entry is not found this way on Node.
  resolve: (specifier, directory) => createRequire(join(directory, "noop.js")).resolve(specifier),
}

/**
 * The platform on plain Node (20 and later): SQLite compiled to WebAssembly (sql.js; see `node-sqlite.ts`
 * for what that driver cannot do), `node:child_process`, picomatch, `require`'s resolver for plugin
 * packages, and `global.gc` when Node runs with `--expose-gc`. Loading the WebAssembly module is why this
 * layer is an effect.
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
  Layer.succeed(Modules, nodeModules),
  Layer.succeed(Heap, {
    runtime: "node",
    collect: () => (globalThis as { gc?: () => void }).gc?.(),
  }),
)
