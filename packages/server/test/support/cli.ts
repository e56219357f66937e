/**
 * The `opencode2` CLI as a child process, run from source (`bun packages/server/src/cli/main.ts`) with an
 * isolated environment: HOME and the XDG directories inside a temporary directory, no config, database
 * or password inherited from the caller.
 */
import type { Subprocess } from "bun"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"

export const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Environment for a child confined to `dir` (config, data, home). */
export const isolatedEnv = (dir: string, env: Record<string, string> = {}): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "data"),
  OPENCODE_CONFIG: "",
  OPENCODE_DB: "",
  OPENCODE_SERVER_PASSWORD: "",
  NO_COLOR: "1",
  ...env,
})

const children = new Set<Subprocess>()
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    await child.exited
  }
})

/** Starts `opencode2 ...args` in `cwd`; stdout and stderr are pipes. */
export const spawnCli = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env?: Record<string, string>; command?: ReadonlyArray<string> },
) => {
  const child = Bun.spawn([...(options.command ?? [process.execPath, CLI]), ...args], {
    cwd: options.cwd,
    env: isolatedEnv(options.cwd, options.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  children.add(child)
  void child.exited.then(() => children.delete(child))
  return child
}

/** Runs `opencode2 ...args` to completion. */
export const runCli = async (
  args: ReadonlyArray<string>,
  options: { cwd: string; env?: Record<string, string>; command?: ReadonlyArray<string> },
): Promise<CliResult> => {
  const child = spawnCli(args, options)
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

export { readRest, readUntil } from "./stream.ts"

/**
 * The listening line of `opencode2 serve`, whole: it matches only once the line's newline arrived, so a
 * chunk that ends inside the URL is never taken for the address.
 */
export const LISTENING = /^opencode2 listening on (http:\/\/\S+)\n/m
