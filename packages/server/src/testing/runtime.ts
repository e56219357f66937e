/**
 * The kit runs a whole host in the test's process, and the host is built on Bun (`bun:sqlite`, `Bun.serve`,
 * `Bun.spawn`). Under Node.js it would die on its first Bun import with a loader error that names neither
 * the kit nor the fix (and vitest 5 itself needs Node 22.12: on Node 20 it crashes on `Map.groupBy`), so the
 * kit's entry points refuse other runtimes first, saying what to run instead.
 */
export const requireBun = (what: string) => {
  if (typeof (globalThis as { Bun?: unknown }).Bun !== "undefined") return
  const node = typeof process === "object" && process.versions?.node ? ` Node.js ${process.versions.node}` : ""
  throw new Error(
    `${what} needs the Bun runtime: the opencode2 host it starts uses Bun's SQLite, HTTP server and process APIs, ` +
      `and this process is${node || " not Bun"}. Run the tests with \`bun test\` or \`bun --bun vitest run\` ` +
      `(see docs/testing-plugins.md, "Runtimes").`,
  )
}
