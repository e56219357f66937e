import { Context } from "effect"
import { bunHeap } from "./bun-heap.ts"
import type { HeapShape } from "./heap-shape.ts"

export type { HeapShape } from "./heap-shape.ts"

/** The runtime's garbage collector. Bun's `Bun.gc` is the default. */
export const Heap = Context.Reference<HeapShape>("@opencode-ai/core/platform/Heap", { defaultValue: bunHeap })
