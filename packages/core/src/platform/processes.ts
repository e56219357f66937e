import { Context } from "effect"
import { bunProcesses } from "./bun-processes.ts"
import type { ProcessesShape } from "./processes-shape.ts"

export type { ChildProcess, ProcessesShape, SpawnOptions } from "./processes-shape.ts"

/** How the platform starts child processes (the bash tool). Bun's `Bun.spawn` is the default. */
export const Processes = Context.Reference<ProcessesShape>("@opencode-ai/core/platform/Processes", {
  defaultValue: bunProcesses,
})
