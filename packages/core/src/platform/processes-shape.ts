/** A started child process with piped stdout and stderr (stdin closed). */
export interface ChildProcess {
  readonly pid: number
  readonly stdout: ReadableStream<Uint8Array>
  readonly stderr: ReadableStream<Uint8Array>
  /** Resolves when the process has exited: its exit code, or `null` when a signal ended it. */
  readonly exited: Promise<number | null>
  /** The signal that ended it (`"SIGKILL"`), once exited; `null` otherwise. */
  readonly signalCode: string | null
}

export interface SpawnOptions {
  readonly cwd: string
  readonly env: Record<string, string>
  /** Starts the child as the leader of a new process group, so the whole group can be killed. */
  readonly detached: boolean
}

export interface ProcessesShape {
  /** The runtime these processes belong to (`"bun"`, `"node"`). */
  readonly runtime: string
  /** Starts `argv[0]` with the rest as its arguments; throws when it cannot start at all. */
  spawn(argv: ReadonlyArray<string>, options: SpawnOptions): ChildProcess
}
