import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Node's own test runner runs these, compiled (`bun run test:node`).
    exclude: ["test/node/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
