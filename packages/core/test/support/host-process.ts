import { join } from "node:path"
import type { ConfigData } from "../../src/config/config.ts"
import { readUntil } from "./stream.ts"

/** What `host-child.ts` is told to do (see there). */
export interface HostChildSpec {
  readonly database: string
  readonly directory: string
  readonly config: ConfigData
  readonly prompts: ReadonlyArray<string>
  readonly compact?: boolean
}

/**
 * Starts `host-child.ts` in a process of its own and resolves once it has prompted every session (it
 * prints their ids), with the child still running: restart tests then kill it where they need to.
 */
export const startHostChild = async (spec: HostChildSpec) => {
  const child = Bun.spawn([process.execPath, join(import.meta.dirname, "host-child.ts"), JSON.stringify(spec)], {
    stdout: "pipe",
    stderr: "inherit",
  })
  const { text: out } = await readUntil(child.stdout, (text) => text.includes("\n"))
  if (!out.includes("\n")) throw new Error("child exited early")
  const { sessions } = JSON.parse(out.split("\n")[0]!) as { sessions: Array<string> }
  return { child, sessions }
}
