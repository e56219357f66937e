// `bun run bench`: every benchmark of the project, in order. Each prints percentiles and ratios. A suite that
// fails is reported with its error and the run goes on to the next one, so one broken suite hides no other
// numbers; the run then exits non-zero, naming the failed suites.
export {}

const suites = [
  "./core-commit.ts",
  "./turn-overhead.ts",
  "./plugins.ts",
  "./task-overhead.ts",
  "./queue-drain.ts",
  "./edit-tool.ts",
  "./revert.ts",
  "./storage.ts",
  "./retention.ts",
  "./session-stats.ts",
  "./restart.ts",
  "./http.ts",
  "./grep-health.ts",
  "./startup.ts",
  "./mcp.ts",
  "./lsp.ts",
  "./testkit.ts",
  "./web-client.ts",
  "./tui.ts",
]

const failed: Array<string> = []
for (const suite of suites) {
  try {
    const { run } = (await import(suite)) as { run: () => Promise<void> }
    await run()
  } catch (cause) {
    failed.push(suite)
    console.log(`\n  FAILED ${suite}: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`)
  }
}
if (failed.length > 0) {
  console.log(`\n${failed.length} of ${suites.length} suites failed: ${failed.join(", ")}`)
  process.exitCode = 1
}
