import { Context } from "effect"
import { requireBun } from "./bun-runtime.ts"

export interface HeapShape {
  /** The runtime this heap belongs to (`"bun"`, `"node"`). */
  readonly runtime: string
  /**
   * Collects garbage now, where the runtime allows it; a no-op elsewhere. Long batch jobs (erasing a large
   * journal) call it between chunks so peak memory stays at a chunk's worth.
   */
  collect(): void
}

const bunHeap = (): HeapShape => ({ runtime: "bun", collect: () => requireBun("Heap").gc(true) })

/** The runtime's garbage collector. Bun's `Bun.gc` is the default. */
export const Heap = Context.Reference<HeapShape>("@opencode-ai/core/platform/Heap", { defaultValue: bunHeap })
