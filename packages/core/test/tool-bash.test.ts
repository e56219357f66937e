import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Fiber } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
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
  Effect.runPromise(bash.execute(timeout === undefined ? { command } : { command, timeout }, ctxWith()))
const runError = (command: string, timeout?: number, ctx = ctxWith()) =>
  Effect.runPromise(Effect.flip(bash.execute(timeout === undefined ? { command } : { command, timeout }, ctx)))

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
  test("returns combined stdout and stderr, runs in the session directory", async () => {
    const out = await run("echo out; echo err >&2; pwd")
    expect(out.split("\n").sort()).toEqual(["err", "out", session].sort())
  })

  test("no output and success", async () => {
    expect(await run("true")).toBe("(no output)")
  })

  test("a non-zero exit code is reported after the output", async () => {
    const out = await run("echo partial; exit 3")
    expect(out).toBe("partial\n\nexit code 3")
  })

  test("stdin is closed", async () => {
    expect(await run("cat; echo done")).toBe("done")
  })

  test("caps large output, keeping head and tail", async () => {
    const out = await run("seq 1 200000")
    expect(Buffer.byteLength(out)).toBeLessThan(BASH_MAX_OUTPUT_BYTES + 500)
    expect(out.startsWith("1\n2\n3\n")).toBe(true)
    expect(out.endsWith("199999\n200000")).toBe(true)
    expect(out).toContain("bytes omitted")
  })

  test("kills the command and its children on timeout", async () => {
    const ready = makeFifo()
    const hold = holdOpenUntilDead()
    const started = Date.now()
    const pending = runError(`${hold.redirect}; sleep 30 & echo ready > ${ready}; wait`, 500)
    expect((await readFifo(ready)).trim()).toBe("ready")
    const error = await pending
    expect(error).toBeInstanceOf(ToolError)
    expect(error.message).toContain("timed out after 500 ms")
    await hold.allDead // bash and the background sleep both died
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  test("kills the command and its children when ctx.signal aborts", async () => {
    const ready = makeFifo()
    const hold = holdOpenUntilDead()
    const controller = new AbortController()
    const pending = runError(
      `${hold.redirect}; echo first; sleep 30 & echo ready > ${ready}; wait`,
      undefined,
      ctxWith(controller.signal),
    )
    expect((await readFifo(ready)).trim()).toBe("ready")
    controller.abort()
    const error = await pending
    expect(error).toBeInstanceOf(ToolError)
    expect(error.message).toContain("aborted")
    expect(error.message).toContain("first")
    await hold.allDead
  })

  test("an already aborted signal does not start the command", async () => {
    const controller = new AbortController()
    controller.abort()
    const marker = nodePath.join(session, "should-not-exist")
    const error = await runError(`touch ${marker}`, undefined, ctxWith(controller.signal))
    expect(error).toBeInstanceOf(ToolError)
    expect(error.message).toContain("aborted")
    await expect(fs.access(marker)).rejects.toThrow()
  })

  test("interrupting the fiber kills the command and its children", async () => {
    const ready = makeFifo()
    const hold = holdOpenUntilDead()
    const fiber = Effect.runFork(
      bash.execute({ command: `${hold.redirect}; sleep 30 & echo ready > ${ready}; wait` }, ctxWith()),
    )
    expect((await readFifo(ready)).trim()).toBe("ready")
    await Effect.runPromise(Fiber.interrupt(fiber))
    await hold.allDead
  })

  test("does not hang on a background child that keeps the output pipe open", async () => {
    const started = Date.now()
    const out = await run("sleep 30 & echo $!")
    const pid = Number(out.trim())
    expect(Number.isInteger(pid)).toBe(true)
    expect(Date.now() - started).toBeLessThan(10_000)
    process.kill(pid, "SIGKILL")
  })
})

describe("bash environment", () => {
  test("secrets are stripped: server password, provider keys, the config's {env:VAR} names", async () => {
    const { childEnvironment } = await import("../src/tool/env.ts")
    const env = childEnvironment(
      { PATH: process.env.PATH, OPENCODE_SERVER_PASSWORD: "pw", OPENAI_API_KEY: "sk", MY_LOCAL_KEY: "k", KEEP: "yes" },
      ["MY_LOCAL_KEY"],
    )
    const out = await Effect.runPromise(bash.execute({ command: "env" }, { ...ctxWith(), env }))
    expect(out).toContain("KEEP=yes")
    expect(out).not.toMatch(/OPENCODE_SERVER_PASSWORD|OPENAI_API_KEY|MY_LOCAL_KEY/)
  })

  test("without an explicit environment, the host's secrets are still removed", async () => {
    process.env.OPENCODE_SERVER_PASSWORD = "hunter2"
    try {
      const out = await run("env")
      expect(out).not.toContain("OPENCODE_SERVER_PASSWORD")
    } finally {
      delete process.env.OPENCODE_SERVER_PASSWORD
    }
  })
})

describe("config secrets", () => {
  test("every {env:VAR} the config file references is kept out of child processes", async () => {
    const { Config } = await import("../src/config/config.ts")
    const { childEnvironment } = await import("../src/tool/env.ts")
    const dir = await fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-bash-config-"))
    try {
      await fs.writeFile(
        nodePath.join(dir, "opencode.json"),
        JSON.stringify({
          model: "local/m",
          provider: {
            local: { type: "openai-compatible", baseURL: "http://127.0.0.1:1/v1", apiKey: "{env:MY_LOCAL_SECRET}" },
          },
        }),
      )
      const env = { MY_LOCAL_SECRET: "s3cret", HOME: "/home/x" }
      const config: ConfigShape = await Effect.runPromise(Config.load(dir, env))
      expect(config.secrets).toEqual(["MY_LOCAL_SECRET"])
      const out = await Effect.runPromise(
        bash.execute(
          { command: "env" },
          { ...ctxWith(), env: childEnvironment({ ...env, PATH: process.env.PATH }, config.secrets) },
        ),
      )
      expect(out).toContain("HOME=/home/x")
      expect(out).not.toContain("s3cret")
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  })
})
