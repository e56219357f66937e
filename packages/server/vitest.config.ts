import { htmlImport } from "@opencode-ai/app/vite-html-import"
import { defineConfig } from "vitest/config"

export default defineConfig({
  // The server imports the web client's page as Bun does (an HTML import); Vite needs to be told how.
  plugins: [htmlImport()],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
