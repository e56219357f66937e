import { type RetentionPlan, type RetentionSummary, retentionPolicy } from "@opencode-ai/core"
import { Effect } from "effect"
import { databasePath, loadConfig, openLocal, withBackend } from "./backend.ts"
import { CommandError, defineCommand, EXIT_OK, UsageError } from "./command.ts"
import { findRunning } from "./registration.ts"
import { formatBytes, renderStats } from "./render.ts"
import { target, targetFlags } from "./session.ts"

export const dbStats = defineCommand({
  name: "db stats",
  summary: "Where the database's bytes are: per session and per item type, the journal, pages and files.",
  synopsis: "[--session ID] [--json] [--attach URL | --db PATH]",
  flags: {
    session: { type: "string", short: "s", value: "ID", description: "Only this session" },
    json: { type: "boolean", description: "Print the stats as JSON (the GET /api/storage body)" },
    ...targetFlags,
  },
  positionals: [],
  async run({ flags }, io): Promise<number> {
    const stats = await withBackend(target(dbStats, flags), io, (backend) => backend.stats(flags.session))
    if (flags.json) io.out(JSON.stringify(stats, null, 2))
    else for (const line of renderStats(stats)) io.out(line)
    return EXIT_OK
  },
})

export const dbErase = defineCommand({
  name: "db erase",
  summary: "Erase a session's superseded content from the event journal, then rebuild the database file.",
  synopsis: "--session ID [--attach URL | --db PATH]",
  details: [
    "Corrected, retracted, removed and pruned content is replaced by tombstones in the journal (with",
    "`events.persist` on); then the WAL is checkpointed and the file vacuumed, so the bytes are gone.",
    "Content still visible in the transcript is never touched. Prints one summary line.",
  ],
  flags: {
    session: { type: "string", short: "s", value: "ID", description: "The session to erase (required)" },
    ...targetFlags,
  },
  positionals: [],
  async run({ flags }, io): Promise<number> {
    const sessionID = requiredSession(flags.session)
    const summary = await withBackend(target(dbErase, flags), io, (backend) => backend.erase(sessionID))
    io.out(
      `erased ${summary.sessionID}: ${summary.events} events rewritten, ${summary.fields} fields, ${summary.bytes} bytes` +
        (summary.bytes >= 1024 ? ` (${formatBytes(summary.bytes)})` : ""),
    )
    return EXIT_OK
  },
})

const requiredSession = (value: string | undefined) => {
  if (value === undefined || value === "") throw new UsageError("missing --session ID", dbErase)
  return value
}

export const dbRetention = defineCommand({
  name: "db retention",
  summary: "Apply `storage.retention` now, or show what it would do (--dry-run).",
  synopsis: "[--dry-run] [--json] [--db PATH]",
  details: [
    "Uses the config's `storage.retention` (prune, delete, journal ages). A server applies it by itself at",
    "start and then daily; with a server running on the database only --dry-run is allowed here.",
    "--dry-run lists each session that would be pruned, deleted or have its journal compacted, and",
    "changes nothing.",
  ],
  flags: {
    "dry-run": { type: "boolean", description: "Show what would be done; change nothing" },
    json: { type: "boolean", description: "Print the plan or the summary as JSON" },
    db: { type: "string", value: "PATH", description: "The database file (default OPENCODE_DB, then XDG)" },
  },
  positionals: [],
  async run({ flags }, io): Promise<number> {
    const config = await loadConfig(io)
    const policy = await Effect.runPromise(retentionPolicy(config.data, config.path).pipe(Effect.orDie))
    if (!policy) {
      io.out("storage.retention names nothing in the config: retention is off")
      return EXIT_OK
    }
    const path = databasePath(flags.db, io)
    const dryRun = flags["dry-run"] === true
    if (!dryRun && (await findRunning(path))) {
      throw new CommandError(
        `a server is running on ${path}; it applies retention at start and daily (use --dry-run to see what it would do)`,
      )
    }
    const backend = await openLocal(path, config)
    try {
      const result = await backend.retention(policy, dryRun)
      if (flags.json) io.out(JSON.stringify(result, null, 2))
      else
        for (const line of dryRun ? renderPlan(result as RetentionPlan) : renderSummary(result as RetentionSummary))
          io.out(line)
    } finally {
      await backend.close()
    }
    return EXIT_OK
  },
})

const renderPlan = (plan: RetentionPlan): Array<string> => {
  const items = plan.prune.reduce((n, p) => n + p.items, 0)
  const events = plan.journal.reduce((n, j) => n + j.events, 0)
  const bytes = plan.journal.reduce((n, j) => n + j.bytes, 0)
  return [
    `dry run at ${new Date(plan.time).toISOString()}: nothing was changed`,
    `prune: ${plan.prune.length} session(s), ${items} item(s)`,
    ...plan.prune.map((p) => `  ${p.sessionID}  ${p.messages} message(s), ${p.items} item(s)`),
    `delete: ${plan.delete.length} session(s)`,
    ...plan.delete.map((d) => `  ${d.sessionID}  idle since ${new Date(d.updated).toISOString()}`),
    `journal: ${plan.journal.length} session(s), ${events} event(s), ${formatBytes(bytes)}`,
    ...plan.journal.map((j) => `  ${j.sessionID}  ${j.events} event(s), ${formatBytes(j.bytes)}`),
  ]
}

const renderSummary = (s: RetentionSummary): Array<string> => [
  `retention at ${new Date(s.time).toISOString()}`,
  `pruned: ${s.pruned.items} item(s) in ${s.pruned.messages} message(s) of ${s.pruned.sessions} session(s), ${formatBytes(s.pruned.bytes)}`,
  `deleted: ${s.deleted.sessions} session(s)`,
  `journal: ${s.journal.events} event(s) of ${s.journal.sessions} session(s) compacted, ${formatBytes(s.journal.bytes)}`,
]
