import { defineConfig } from "vitest/config"
import { htmlImport } from "./vite-html-import.ts"

export default defineConfig({
  plugins: [htmlImport()],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
