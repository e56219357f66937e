import { Context } from "effect"
import { bunGlob } from "./bun-glob.ts"
import type { GlobShape } from "./glob-shape.ts"

export type { GlobShape } from "./glob-shape.ts"

/** How the platform matches glob patterns (the glob tool, file search). Bun's `Bun.Glob` is the default. */
export const Glob = Context.Reference<GlobShape>("@opencode-ai/core/platform/Glob", { defaultValue: bunGlob })
