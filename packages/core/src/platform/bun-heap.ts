import { requireBun } from "./bun-runtime.ts"
import type { HeapShape } from "./heap-shape.ts"

/** Bun's implementation: the default of `Heap`. */
export const bunHeap = (): HeapShape => ({ runtime: "bun", collect: () => requireBun("Heap").gc(true) })
