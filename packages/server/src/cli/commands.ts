/**
 * Every command of the CLI, for the overview and dispatch. Loading this loads every command's
 * implementation (and through them the server and core), so `main.ts` imports it only for commands
 * other than the terminal UI, whose first frame should not wait for them.
 */
import type { AnyCommand } from "./command.ts"
import { dbErase, dbRetention, dbStats } from "./db.ts"
import { openapi } from "./openapi.ts"
import { run } from "./run.ts"
import { serve } from "./serve.ts"
import { tui } from "./tui.ts"
import { sessionList, sessionPrune, sessionShow } from "./session.ts"
import { sessionDelete, sessionExport, sessionFork, sessionImport, sessionRename } from "./session-manage.ts"
import { sessionInterrupt } from "./session-interrupt.ts"
import { sessionRevert } from "./session-revert.ts"

/** Top-level commands, and the groups (`session`, `db`) with their subcommands. */
export const commands: ReadonlyArray<AnyCommand> = [
  tui,
  serve,
  run,
  sessionList,
  sessionShow,
  sessionPrune,
  sessionRename,
  sessionDelete,
  sessionExport,
  sessionImport,
  sessionFork,
  sessionRevert,
  sessionInterrupt,
  dbStats,
  dbErase,
  dbRetention,
  openapi,
]
export const groups: Record<string, string> = {
  session:
    "Sessions: list, show, rename, delete, export, import and fork them; revert to a message; prune tool and reasoning items.",
  db: "The database: where the bytes are, and erasing superseded content from the journal.",
}
