/**
 * A real `opencode2 serve` child process on loopback (a free port) over a temporary database, for the TUI
 * tests to attach to: one host shared by a test file keeps the file fast.
 */
import type { Subprocess } from "bun"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import { afterAll } from "vitest"
import { tempDir } from "./tmp.ts"

/** The CLI from source. */
export const CLI = fileURLToPath(new URL("../../../server/src/cli/main.ts", import.meta.url))

/** An environment confined to `dir`: no config, database or password inherited from the caller. */
export const isolatedEnv = (dir: string, env: Record<string, string> = {}): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "data"),
  OPENCODE_CONFIG: "",
  OPENCODE_DB: "",
  OPENCODE_SERVER_PASSWORD: "",
  ...env,
})

const children = new Set<Subprocess>()
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null) child.kill("SIGKILL")
    await child.exited
  }
})

export interface Host {
  readonly url: string
  readonly db: string
  /** The directory the server runs in (sessions there are the TUI's when it runs there too). */
  readonly dir: string
  readonly client: OpencodeClient
  readonly child: Subprocess
}

/** Starts `opencode2 serve` and resolves once it prints its URL. */
export const startHost = async (options: { dir?: string; db?: string; port?: number } = {}): Promise<Host> => {
  const dir = options.dir ?? tempDir("oc2-tui-host-")
  const db = options.db ?? join(dir, "opencode.db")
  const child = Bun.spawn(
    [process.execPath, CLI, "serve", "--port", String(options.port ?? 0), "--db", db, "--no-resume"],
    { cwd: dir, env: isolatedEnv(dir), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  )
  children.add(child)
  const reader = child.stdout.getReader()
  let seen = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`serve exited before listening: ${await new Response(child.stderr).text()}`)
    seen += new TextDecoder().decode(value)
    const match = /listening on (\S+)/.exec(seen)
    if (match) {
      reader.releaseLock()
      const url = match[1]!
      return { url, db, dir, client: createOpencodeClient({ baseUrl: url }), child }
    }
  }
}

/** Stops a host (SIGKILL: as a crash or a lost network would) and waits for it to be gone. */
export const killHost = async (host: Host) => {
  host.child.kill("SIGKILL")
  await host.child.exited
}
