import { withBackend } from "./backend.ts"
import { defineCommand, EXIT_OK, UsageError } from "./command.ts"
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
