// `bun run bench`: every benchmark of the project, in order. Each prints percentiles and ratios.
const suites = [
  "./core-commit.ts",
  "./turn-overhead.ts",
  "./queue-drain.ts",
  "./edit-tool.ts",
  "./storage.ts",
  "./restart.ts",
  "./http.ts",
  "./grep-health.ts",
  "./startup.ts",
  "./testkit.ts",
  "./web-client.ts",
]

for (const suite of suites) {
  const { run } = (await import(suite)) as { run: () => Promise<void> }
  await run()
}
