import { Effect, Schema } from "effect"
import { type ChildProcess, Processes, type ProcessesShape } from "../platform/processes.ts"
import { bashCommands } from "./bash-commands.ts"
import { childEnvironment } from "../config/child-env.ts"
import { sessionRoot } from "./path.ts"
import { ToolError, type Tool, type ToolPlan } from "./tool.ts"

export const BASH_DEFAULT_TIMEOUT_MS = 120_000
export const BASH_MAX_TIMEOUT_MS = 600_000
/** Combined output kept: the first and the last half of this many bytes. */
export const BASH_MAX_OUTPUT_BYTES = 64 * 1024
/** After bash itself exits, how long to wait for background children still holding its output open. */
const DRAIN_GRACE_MS = 250

export const BashInput = Schema.Struct({
  command: Schema.String.annotate({ description: "The command line, run with `bash -c` in the session directory." }),
  timeout: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: BASH_MAX_TIMEOUT_MS })).annotate({
      description: `Timeout in milliseconds (max ${BASH_MAX_TIMEOUT_MS}). Defaults to ${BASH_DEFAULT_TIMEOUT_MS}.`,
    }),
  ),
})
export type BashInput = typeof BashInput.Type

/**
 * Collects output bytes in arrival order, keeping only the first and the last `max / 2` bytes so that a
 * chatty command cannot exhaust memory. The tail usually holds the error that matters.
 */
class OutputBuffer {
  private readonly half: number
  private readonly head: Array<Uint8Array> = []
  private headSize = 0
  private tail: Array<Uint8Array> = []
  private tailSize = 0
  total = 0

  constructor(max: number) {
    this.half = Math.floor(max / 2)
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length
    if (this.headSize < this.half) {
      const take = Math.min(this.half - this.headSize, chunk.length)
      this.head.push(chunk.subarray(0, take))
      this.headSize += take
      chunk = chunk.subarray(take)
    }
    if (chunk.length === 0) return
    this.tail.push(chunk)
    this.tailSize += chunk.length
    while (this.tail.length > 1 && this.tailSize - this.tail[0]!.length >= this.half) {
      this.tailSize -= this.tail.shift()!.length
    }
  }

  text(): string {
    const decoder = () => new TextDecoder("utf-8")
    const head = decoder().decode(Buffer.concat(this.head))
    const tailBytes = Buffer.concat(this.tail)
    if (this.total <= this.headSize + tailBytes.length) return head + decoder().decode(tailBytes)
    const kept = tailBytes.subarray(tailBytes.length - this.half)
    const omitted = this.total - this.headSize - kept.length
    return (
      head +
      `\n\n... [${omitted} bytes omitted: output truncated to the first and last ${this.half / 1024} KiB of ${this.total} bytes] ...\n\n` +
      decoder().decode(kept)
    )
  }
}

const drain = async (stream: ReadableStream<Uint8Array>, out: OutputBuffer, stop: Promise<void>): Promise<void> => {
  const reader = stream.getReader()
  const stopped = stop.then(() => ({ done: true as const, value: undefined }))
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), stopped])
      if (done) return
      out.push(value)
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

/** Kills the whole process group (bash runs as its own group leader), so pipelines and children die too. */
const killGroup = (pid: number): void => {
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // Already gone.
  }
}

const run = async (
  processes: ProcessesShape,
  cwd: string,
  input: BashInput,
  env: Record<string, string>,
  ctxSignal: AbortSignal,
  interrupt: AbortSignal,
): Promise<string> => {
  if (ctxSignal.aborted) throw new ToolError({ tool: "bash", message: "aborted before the command started" })
  const timeout = input.timeout ?? BASH_DEFAULT_TIMEOUT_MS

  let proc: ChildProcess
  try {
    proc = processes.spawn(["bash", "-c", input.command], { cwd, env, detached: true })
  } catch (error) {
    throw new ToolError({ tool: "bash", message: `cannot start bash: ${String(error)}` })
  }

  let reason: "timeout" | "aborted" | undefined
  const stopFor = (why: "timeout" | "aborted") => () => {
    if (reason === undefined) reason = why
    killGroup(proc.pid)
  }
  const onAbort = stopFor("aborted")
  const onInterrupt = () => killGroup(proc.pid)
  const timer = setTimeout(stopFor("timeout"), timeout)
  ctxSignal.addEventListener("abort", onAbort, { once: true })
  interrupt.addEventListener("abort", onInterrupt, { once: true })
  if (ctxSignal.aborted) onAbort()

  const out = new OutputBuffer(BASH_MAX_OUTPUT_BYTES)
  let exitCode: number | null
  try {
    // Streams are drained until EOF, or until a short grace period after bash exits: a background child
    // (`server &`) may keep the pipes open indefinitely and must not hold the tool call hostage.
    const exited = proc.exited
    const stop = exited.then(() => new Promise<void>((resolve) => setTimeout(resolve, DRAIN_GRACE_MS)))
    await Promise.all([drain(proc.stdout, out, stop), drain(proc.stderr, out, stop), exited])
    exitCode = await exited
  } finally {
    clearTimeout(timer)
    ctxSignal.removeEventListener("abort", onAbort)
    interrupt.removeEventListener("abort", onInterrupt)
  }

  const output = out.text().replace(/\n+$/, "")
  const body = output === "" ? "(no output)" : output
  if (reason === "timeout") {
    throw new ToolError({ tool: "bash", message: `${body}\n\ncommand timed out after ${timeout} ms and was killed` })
  }
  if (reason === "aborted") throw new ToolError({ tool: "bash", message: `${body}\n\ncommand aborted and killed` })
  if (exitCode === 0) return body
  if (exitCode === null || proc.signalCode) return `${body}\n\nterminated by signal ${proc.signalCode ?? "unknown"}`
  return `${body}\n\nexit code ${exitCode}`
}

/**
 * The permission plan of a command line (the registry plans bash calls with it): each simple command is a
 * pattern (`bash-commands.ts`), and the commands whose meaning is not static are `unresolved`, with the
 * reasons shown to the person asked.
 */
export const planCommand = (command: string, run: ToolPlan["run"]): Effect.Effect<ToolPlan> =>
  Effect.map(
    Effect.promise(() => bashCommands(command)),
    ({ subjects, unresolved }): ToolPlan => ({
      permission: "bash",
      patterns: subjects,
      ...(unresolved.length > 0
        ? {
            unresolved: unresolved.map((u) => u.subject),
            metadata: { unresolved: unresolved.map((u) => `${u.subject}: ${u.reason}`) },
          }
        : {}),
      title: `bash ${command.length > 200 ? `${command.slice(0, 199)}…` : command}`,
      run,
    }),
  )

/**
 * Runs a shell command in the session directory, in its own process group, with the host's secrets removed
 * from its environment. Not a sandbox. (docs/architecture.md, "bash is not a sandbox")
 */
export const bash: Tool<BashInput> = {
  name: "bash",
  description: [
    "Run a shell command with `bash -c` in the session directory and return its combined stdout and stderr",
    `(capped at ${BASH_MAX_OUTPUT_BYTES / 1024} KiB: first and last half kept), followed by "exit code N" when it`,
    `fails. stdin is closed. The command is killed after timeout ms (default ${BASH_DEFAULT_TIMEOUT_MS}, max`,
    `${BASH_MAX_TIMEOUT_MS}). Prefer the read, list and grep tools for inspecting files.`,
  ].join(" "),
  input: BashInput,
  execute: (input, ctx) =>
    Effect.gen(function* () {
      const cwd = yield* sessionRoot("bash", ctx.directory)
      const processes = yield* Processes
      return yield* Effect.tryPromise({
        try: (interrupt) => run(processes, cwd, input, childEnvironment(ctx.env ?? process.env), ctx.signal, interrupt),
        catch: (error) =>
          error instanceof ToolError
            ? error
            : new ToolError({ tool: "bash", message: `command failed: ${String(error)}` }),
      })
    }),
}
