import { spawn } from "node:child_process"
import { Readable } from "node:stream"
import type { ChildProcess, ProcessesShape } from "./processes-shape.ts"

/** `node:child_process`, with the pipes as web streams like Bun's. */
export const nodeProcesses = (): ProcessesShape => ({
  runtime: "node",
  spawn: (argv, options) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached,
    })
    // Node reports a failed start (a missing program, a bad cwd) as an event; Bun throws at once.
    let failure: Error | undefined
    child.once("error", (error) => (failure = error))
    if (child.pid === undefined) {
      throw failure ?? new Error(`cannot start ${argv[0]}`)
    }
    const exited = new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code))
      child.once("error", () => resolve(null))
    })
    const stream = (readable: Readable) => Readable.toWeb(readable) as unknown as ReadableStream<Uint8Array>
    const started: ChildProcess = {
      pid: child.pid,
      stdout: stream(child.stdout!),
      stderr: stream(child.stderr!),
      exited,
      get signalCode() {
        return child.signalCode ?? null
      },
    }
    return started
  },
})
