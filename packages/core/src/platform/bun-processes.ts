import { requireBun } from "./bun-runtime.ts"
import type { ProcessesShape } from "./processes-shape.ts"

/** Bun's implementation: the default of `Processes`. */
export const bunProcesses = (): ProcessesShape => ({
  runtime: "bun",
  spawn: (argv, options) => {
    const proc = requireBun("Processes").spawn([...argv], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached,
    })
    return {
      pid: proc.pid,
      stdout: proc.stdout,
      stderr: proc.stderr,
      // Bun reports a signalled exit through `signalCode`; the code is then not the process's own.
      exited: proc.exited.then((code) => (proc.signalCode ? null : code)),
      get signalCode() {
        return proc.signalCode == null ? null : String(proc.signalCode)
      },
    }
  },
})
