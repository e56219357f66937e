import { htmlImport } from "@opencode-ai/app/vite-html-import"

/**
 * The Vite plugins a vitest config needs to load the test kit: the host imports the web client's page as
 * Bun does (an HTML import), which Vite cannot do by itself. `bun test` needs nothing.
 *
 * ```ts
 * // vitest.config.ts
 * import { testkitPlugins } from "@opencode-ai/server/testing/vite"
 * import { defineConfig } from "vitest/config"
 * export default defineConfig({ plugins: testkitPlugins() })
 * ```
 */
export const testkitPlugins = () => [htmlImport()]
