import { requireBun } from "./bun-runtime.ts"
import type { GlobShape } from "./glob-shape.ts"

/** Bun's implementation: the default of `Glob`. */
export const bunGlob = (): GlobShape => ({
  runtime: "bun",
  compile: (pattern) => {
    const glob = new (requireBun("Glob").Glob)(pattern)
    return (path) => glob.match(path)
  },
})
