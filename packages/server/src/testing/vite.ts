import { htmlImport } from "@opencode-ai/app/vite-html-import"
import { requireBun } from "./runtime.ts"

/**
 * The Vite plugins a vitest config needs to load the test kit: the host imports the web client's page as
 * Bun does (an HTML import), which Vite cannot do by itself. `bun test` needs nothing. Vitest must run on Bun
 * (`bun --bun vitest run`): under Node.js this refuses with the command to use, as the kit itself would.
 *
 * ```ts
 * // vitest.config.ts
 * import { testkitPlugins } from "@opencode-ai/server/testing/vite"
 * import { defineConfig } from "vitest/config"
 * export default defineConfig({ plugins: testkitPlugins() })
 * ```
 */
export const testkitPlugins = () => {
  requireBun("@opencode-ai/server/testing/vite")
  return [htmlImport()]
}
