import { existsSync, readFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { describe, expect, it } from "vitest"
import { LISTENING, readRest, readUntil, spawnCli } from "./support/cli.ts"
import { before } from "./support/deadline.ts"
import { NODE, NODE_PATH, ROOT } from "./support/node.ts"
import { tempDir } from "./support/tmp.ts"

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Whether anything answers HTTP at `url`. */
const answers = (url: string) =>
  fetch(`${url}/api/health`).then(
    () => true,
    () => false,
  )

/** npm, as found on a Node-only PATH. */
const NPM = NODE_PATH.split(delimiter)
  .map((dir) => join(dir, "npm"))
  .find((file) => existsSync(file))

/**
 * How a launcher starts `serve ...args`, and from where: `npm start` runs in the checkout (its own files
 * are kept out of it: npm's home is a temporary directory), the others anywhere.
 */
interface Launcher {
  readonly name: string
  readonly argv: (serveArgs: ReadonlyArray<string>) => ReadonlyArray<string>
  readonly inRoot?: boolean
}

const LAUNCHERS: ReadonlyArray<Launcher> = [
  { name: "npm start", argv: (args) => [NPM!, "start", "--", ...args], inRoot: true },
  {
    name: "npm start's command (node scripts/bun.mjs run opencode2 serve)",
    argv: (args) => [NODE, join(ROOT, "scripts", "bun.mjs"), "run", "opencode2", "serve", ...args],
  },
  {
    name: "the opencode2 shim (node bin/opencode2 serve)",
    argv: (args) => [NODE, join(ROOT, "bin", "opencode2"), "serve", ...args],
  },
]

/**
 * `serve` started through a Node launcher on a free port; resolves once it listens, with the server's pid
 * from its registration beside the database.
 */
const launch = async (launcher: Launcher) => {
  const dir = tempDir()
  const db = join(dir, "launched.db")
  const [program, ...args] = launcher.argv(["--port", "0", "--db", db])
  const child = spawnCli(args, {
    cwd: launcher.inRoot ? ROOT : dir,
    env: {
      PATH: NODE_PATH,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_DATA_HOME: join(dir, "data"),
      NPM_CONFIG_UPDATE_NOTIFIER: "false",
    },
    command: [program!],
  })
  const { text, reader } = await before(
    readUntil(child.stdout, (out) => LISTENING.test(out)),
    60_000,
    "the listening line",
  )
  const url = LISTENING.exec(text)?.[1]
  if (!url) throw new Error(`serve exited (${await child.exited}): ${await new Response(child.stderr).text()}`)
  void readRest(reader)
  const server = (JSON.parse(readFileSync(`${db}.server.json`, "utf8")) as { pid: number }).pid
  return { child, url, server }
}

describe("the Node launchers hand signals on to Bun", () => {
  it("npm is on the PATH", () => {
    expect(NPM).toBeDefined()
  })

  for (const launcher of LAUNCHERS) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      it(`${launcher.name}: ${signal} stops the server too, and the launcher exits with its code`, async () => {
        const { child, url, server } = await launch(launcher)
        expect(server).not.toBe(child.pid)
        expect(alive(server)).toBe(true)
        expect(await answers(url)).toBe(true)

        child.kill(signal)
        // The server stops cleanly (exit 0) on the signal, and the launcher waits for it and exits with that.
        expect(await before(child.exited, 30_000, "the launcher's exit")).toBe(0)
        expect(alive(server)).toBe(false)
        expect(await answers(url)).toBe(false)
      }, 90_000)
    }
  }

  it("a repeated signal while the server stops does not kill it", async () => {
    // Ctrl-C reaches every process of the terminal's group and each launcher passes it on again, so the
    // server can get the signal more than once. The process here waits on `termination()` as `serve` does,
    // says when it has started stopping, and finishes its stop when its stdin closes.
    const script = [
      `const { termination } = await import(${JSON.stringify(join(ROOT, "packages/server/src/cli/serve.ts"))})`,
      "const stopped = termination()",
      "console.log('ready')",
      "console.log(`stopping on ${await stopped}`)",
      "for await (const _ of process.stdin) {}",
      "console.log('stopped')",
    ].join("\n")
    const child = Bun.spawn([process.execPath, "-e", script], { stdin: "pipe", stdout: "pipe", stderr: "pipe" })
    const reader = child.stdout.getReader()
    const decoder = new TextDecoder()
    let out = ""
    const until = async (what: string) => {
      while (!out.includes(what)) {
        const chunk = await reader.read()
        if (chunk.done) throw new Error(`exited (${await child.exited}) before "${what}": ${out}`)
        out += decoder.decode(chunk.value, { stream: true })
      }
    }
    await before(until("ready"), 30_000, "the ready line")
    child.kill("SIGINT")
    await before(until("stopping on SIGINT"), 30_000, "the first signal's handling")
    // The repeat arrives while the stop is under way (it cannot end before stdin closes, after this).
    child.kill("SIGINT")
    child.stdin.end()
    await before(until("stopped"), 30_000, "the end of the stop")
    expect(await child.exited).toBe(0)
  }, 60_000)
})
