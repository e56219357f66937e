import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { afterAll, beforeAll } from "vitest"
import { bash, BASH_MAX_OUTPUT_BYTES } from "../src/tool/bash.ts"
import { ToolError, type ToolContext } from "../src/tool/tool.ts"
import type { ConfigShape } from "../src/config/config.ts"

let session: string
let fifoCounter = 0

const ctxWith = (signal: AbortSignal = new AbortController().signal): ToolContext => ({
  sessionID: "ses_test",
  directory: session,
  signal,
})
const run = (command: string, timeout?: number) =>
  bash.execute(timeout === undefined ? { command } : { command, timeout }, ctxWith())
const runError = (command: string, timeout?: number, ctx = ctxWith()) =>
  Effect.flip(bash.execute(timeout === undefined ? { command } : { command, timeout }, ctx))

/** A named pipe: reading it blocks until the command has written to it, so no sleeps are needed. */
const makeFifo = (): string => {
  const path = nodePath.join(session, `sync-${fifoCounter++}.fifo`)
  execFileSync("mkfifo", [path])
  return path
}

/**
 * Reads a named pipe to EOF through `cat`: the blocking open/read happens in the child process, not in the
 * runtime's small file-system thread pool (which the tool under test needs too).
 */
const readFifo = (path: string): Promise<string> => {
  const reader = Bun.spawn(["cat", path], { stdio: ["ignore", "pipe", "inherit"] })
  return new Response(reader.stdout).text()
}

/**
 * A named pipe the command keeps open for writing on fd 3 (inherited by its children). Reading it reaches EOF
 * only once every process holding it has died — a deterministic "the whole process group is gone" signal.
 */
const holdOpenUntilDead = () => {
  const fifo = makeFifo()
  const allDead = readFifo(fifo)
  return { redirect: `exec 3>${fifo}`, allDead }
}

beforeAll(async () => {
  session = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-bash-")))
})

afterAll(async () => {
  await fs.rm(session, { recursive: true, force: true })
})

describe("bash", () => {
  it.effect("returns combined stdout and stderr, runs in the session directory", () =>
    Effect.gen(function* () {
      const out = yield* run("echo out; echo err >&2; pwd")
      expect(out.split("\n").sort()).toEqual(["err", "out", session].sort())
    }),
  )

  it.effect("no output and success", () =>
    Effect.gen(function* () {
      expect(yield* run("true")).toBe("(no output)")
    }),
  )

  it.effect("a non-zero exit code is reported after the output", () =>
    Effect.gen(function* () {
      const out = yield* run("echo partial; exit 3")
      expect(out).toBe("partial\n\nexit code 3")
    }),
  )

  it.effect("stdin is closed", () =>
    Effect.gen(function* () {
      expect(yield* run("cat; echo done")).toBe("done")
    }),
  )

  it.effect("caps large output, keeping head and tail", () =>
    Effect.gen(function* () {
      const out = yield* run("seq 1 200000")
      expect(Buffer.byteLength(out)).toBeLessThan(BASH_MAX_OUTPUT_BYTES + 500)
      expect(out.startsWith("1\n2\n3\n")).toBe(true)
      expect(out.endsWith("199999\n200000")).toBe(true)
      expect(out).toContain("bytes omitted")
    }),
  )

  it.effect("kills the command and its children on timeout", () =>
    Effect.gen(function* () {
      const ready = makeFifo()
      const hold = holdOpenUntilDead()
      const started = Date.now()
      const pending = yield* Effect.forkChild(runError(`${hold.redirect}; sleep 30 & echo ready > ${ready}; wait`, 500))
      expect((yield* Effect.promise(() => readFifo(ready))).trim()).toBe("ready")
      const error = yield* Fiber.join(pending)
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("timed out after 500 ms")
      yield* Effect.promise(() => hold.allDead) // bash and the background sleep both died
      expect(Date.now() - started).toBeLessThan(10_000)
    }),
  )

  it.effect("kills the command and its children when ctx.signal aborts", () =>
    Effect.gen(function* () {
      const ready = makeFifo()
      const hold = holdOpenUntilDead()
      const controller = new AbortController()
      const pending = yield* Effect.forkChild(
        runError(
          `${hold.redirect}; echo first; sleep 30 & echo ready > ${ready}; wait`,
          undefined,
          ctxWith(controller.signal),
        ),
      )
      expect((yield* Effect.promise(() => readFifo(ready))).trim()).toBe("ready")
      controller.abort()
      const error = yield* Fiber.join(pending)
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("aborted")
      expect(error.message).toContain("first")
      yield* Effect.promise(() => hold.allDead)
    }),
  )

  it.effect("an already aborted signal does not start the command", () =>
    Effect.gen(function* () {
      const controller = new AbortController()
      controller.abort()
      const marker = nodePath.join(session, "should-not-exist")
      const error = yield* runError(`touch ${marker}`, undefined, ctxWith(controller.signal))
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("aborted")
      yield* Effect.promise(() => expect(fs.access(marker)).rejects.toThrow())
    }),
  )

  it.effect("interrupting the fiber kills the command and its children", () =>
    Effect.gen(function* () {
      const ready = makeFifo()
      const hold = holdOpenUntilDead()
      const fiber = yield* Effect.forkChild(
        bash.execute({ command: `${hold.redirect}; sleep 30 & echo ready > ${ready}; wait` }, ctxWith()),
      )
      expect((yield* Effect.promise(() => readFifo(ready))).trim()).toBe("ready")
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => hold.allDead)
    }),
  )

  it.effect("does not hang on a background child that keeps the output pipe open", () =>
    Effect.gen(function* () {
      const started = Date.now()
      const out = yield* run("sleep 30 & echo $!")
      const pid = Number(out.trim())
      expect(Number.isInteger(pid)).toBe(true)
      expect(Date.now() - started).toBeLessThan(10_000)
      process.kill(pid, "SIGKILL")
    }),
  )
})

describe("bash environment", () => {
  it.effect("secrets are stripped: server password, provider keys, the config's {env:VAR} names", () =>
    Effect.gen(function* () {
      const { childEnvironment } = yield* Effect.promise(() => import("../src/config/child-env.ts"))
      const env = childEnvironment(
        {
          PATH: process.env.PATH,
          OPENCODE_SERVER_PASSWORD: "pw",
          OPENAI_API_KEY: "sk",
          MY_LOCAL_KEY: "k",
          KEEP: "yes",
        },
        ["MY_LOCAL_KEY"],
      )
      const out = yield* bash.execute({ command: "env" }, { ...ctxWith(), env })
      expect(out).toContain("KEEP=yes")
      expect(out).not.toMatch(/OPENCODE_SERVER_PASSWORD|OPENAI_API_KEY|MY_LOCAL_KEY/)
    }),
  )

  it.effect("without an explicit environment, the host's secrets are still removed", () =>
    Effect.gen(function* () {
      process.env.OPENCODE_SERVER_PASSWORD = "hunter2"
      const out = yield* run("env")
      expect(out).not.toContain("OPENCODE_SERVER_PASSWORD")
    }).pipe(Effect.ensuring(Effect.sync(() => delete process.env.OPENCODE_SERVER_PASSWORD))),
  )
})

describe("config secrets", () => {
  it.effect("every {env:VAR} the config file references is kept out of child processes", () =>
    Effect.gen(function* () {
      const { Config } = yield* Effect.promise(() => import("../src/config/config.ts"))
      const { childEnvironment } = yield* Effect.promise(() => import("../src/config/child-env.ts"))
      const dir = yield* Effect.acquireRelease(
        Effect.promise(() => fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-bash-config-"))),
        (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true })),
      )
      yield* Effect.promise(() =>
        fs.writeFile(
          nodePath.join(dir, "opencode.json"),
          JSON.stringify({
            model: "local/m",
            provider: {
              local: { type: "openai-compatible", baseURL: "http://127.0.0.1:1/v1", apiKey: "{env:MY_LOCAL_SECRET}" },
            },
          }),
        ),
      )
      const env = { MY_LOCAL_SECRET: "s3cret", HOME: "/home/x" }
      const config: ConfigShape = yield* Config.load(dir, env)
      expect(config.secrets).toEqual(["MY_LOCAL_SECRET"])
      const out = yield* bash.execute(
        { command: "env" },
        { ...ctxWith(), env: childEnvironment({ ...env, PATH: process.env.PATH }, config.secrets) },
      )
      expect(out).toContain("HOME=/home/x")
      expect(out).not.toContain("s3cret")
    }),
  )
})
