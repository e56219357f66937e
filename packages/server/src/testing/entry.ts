/**
 * The packed `@opencode-ai/server/testing` entry (`dist/src/testing/entry.js`; its types are `index.ts`'s):
 * checks the runtime before anything Bun-only is linked - a static import would fail at link time, before any
 * check could run - then hands over the kit.
 */
import { requireBun } from "./runtime.ts"

requireBun("@opencode-ai/server/testing")
const kit = await import("./index.ts")

export const createTestHost = kit.createTestHost
export const TestHostPluginError = kit.TestHostPluginError
