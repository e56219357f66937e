import { homedir } from "node:os"
import { join } from "node:path"

/**
 * The global config directory, `$XDG_CONFIG_HOME/opencode2` (default `~/.config/opencode2`): where the
 * global `opencode.json`, commands (`command/`) and skills (`skill/`) live.
 */
export const configHome = (env: Record<string, string | undefined> = process.env): string =>
  join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "opencode2")
