/**
 * `opencode2 serve` as a real child process, run from source: what the end-to-end tests restart, kill and
 * reopen. The child is started with `--port 0 --db PATH`, its config comes from `OPENCODE_CONFIG`, and it
 * is ready once it prints `opencode2 listening on http://HOST:PORT`.
 */
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk/v2"
import type { Subprocess } from "bun"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import { LISTENING } from "./cli.ts"
import { readRest, readUntil } from "./stream.ts"

export const CLI_MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

export interface ServeChild {
  readonly url: string
  readonly pid: number
  /** The SDK client (`subscribe(client)` / `sessionEvents(client)` for the streams). */
  readonly client: OpencodeClient
  /** `client.v2`: the operations. */
  readonly api: OpencodeClient["v2"]
  readonly process: Subprocess<"ignore", "pipe", "pipe">
  /** Everything the child wrote to stderr so far. */
  stderr(): string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number>
  /** SIGKILL, then the exit code (or signal number). */
  kill(): Promise<number>
}

export interface ServeOptions {
  /** Database file (`--db`). */
  readonly database: string
  /** `opencode.json` to use (`OPENCODE_CONFIG`). */
  readonly config: string
  /** Working directory of the child (also its `XDG_CONFIG_HOME`, so no user config leaks in). */
  readonly cwd: string
  readonly args?: ReadonlyArray<string>
  readonly env?: Record<string, string>
}

const children = new Set<Subprocess>()
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    await child.exited
  }
  children.clear()
})

/** Reads a stream as text in the background; `text()` is what arrived so far. */
const collect = (stream: ReadableStream<Uint8Array>) => {
  let text = ""
  const done = (async () => {
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      text += decoder.decode(value, { stream: true })
    }
  })().catch(() => undefined)
  return { text: () => text, done }
}

/**
 * Starts `opencode2 serve` and resolves once it listens. Rejects (with the child's stderr) if the child
 * exits before printing the listening line.
 */
export const spawnServe = async (options: ServeOptions): Promise<ServeChild> => {
  const child = Bun.spawn(
    [process.execPath, CLI_MAIN, "serve", "--port", "0", "--db", options.database, ...(options.args ?? [])],
    {
      cwd: options.cwd,
      env: {
        ...process.env,
        OPENCODE_CONFIG: options.config,
        OPENCODE_DB: "",
        OPENCODE_SERVER_PASSWORD: "",
        XDG_CONFIG_HOME: options.cwd,
        NO_COLOR: "1",
        ...options.env,
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  )
  children.add(child)
  void child.exited.then(() => children.delete(child))
  const stderr = collect(child.stderr)

  // The first stdout line is the listening line; the rest of stdout is drained so the pipe never fills.
  const { text: out, reader } = await readUntil(child.stdout, (text) => LISTENING.test(text))
  const url = LISTENING.exec(out)?.[1]
  if (url === undefined) {
    const code = await child.exited
    await stderr.done
    throw new Error(`opencode2 serve exited (${code}) before listening.\nstdout: ${out}\nstderr: ${stderr.text()}`)
  }
  void readRest(reader).catch(() => undefined)

  const signal = async (name: "SIGTERM" | "SIGKILL") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name)
    return child.exited
  }
  const client = createOpencodeClient({ baseUrl: url })
  return {
    url,
    pid: child.pid,
    client,
    api: client.v2,
    process: child,
    stderr: stderr.text,
    stop: () => signal("SIGTERM"),
    kill: () => signal("SIGKILL"),
  }
}
