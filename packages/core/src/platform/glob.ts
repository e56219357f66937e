import { Context } from "effect"
import { requireBun } from "./bun-runtime.ts"

export interface GlobShape {
  /** The runtime this matcher belongs to (`"bun"`, `"node"`). */
  readonly runtime: string
  /**
   * A matcher for `pattern` (`*` within a segment, `**` across directories, `{a,b}`, `?`, `[...]`), tested
   * against `/`-separated relative paths.
   */
  compile(pattern: string): (path: string) => boolean
}

const bunGlob = (): GlobShape => ({
  runtime: "bun",
  compile: (pattern) => {
    const glob = new (requireBun("Glob").Glob)(pattern)
    return (path) => glob.match(path)
  },
})

/** How the platform matches glob patterns (the glob tool, file search). Bun's `Bun.Glob` is the default. */
export const Glob = Context.Reference<GlobShape>("@opencode-ai/core/platform/Glob", { defaultValue: bunGlob })
