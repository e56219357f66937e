import { testkitPlugins } from "@opencode-ai/server/testing/vite"
import { defineConfig } from "vitest/config"

export default defineConfig({
  plugins: testkitPlugins(),
  test: { include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
})
