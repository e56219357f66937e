import { homedir } from "node:os"
import { join } from "node:path"

/**
 * Where the database lives: an explicit `--db` value, else `OPENCODE_DB`, else
 * `$XDG_DATA_HOME/opencode2/opencode.db` (XDG default `~/.local/share`). `:memory:` is passed through.
 */
export const resolveDatabasePath = (explicit?: string, env: Record<string, string | undefined> = process.env) => {
  if (explicit) return explicit
  if (env.OPENCODE_DB) return env.OPENCODE_DB
  const data = env.XDG_DATA_HOME || join(homedir(), ".local", "share")
  return join(data, "opencode2", "opencode.db")
}
