import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { runCli } from "./support/cli.ts"
import { NODE, NODE_PATH, ROOT } from "./support/node.ts"
import { tempDir } from "./support/tmp.ts"

const SHIM = join(ROOT, "bin", "opencode2")
const edit = `/tool edit ${JSON.stringify({ path: "a.ts", oldString: "41", newString: "42" })}`

/** The shell commands of the README's quick start: its code blocks up to the next heading, comments left out. */
const quickStart = (): Array<Array<string>> => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8")
  const from = readme.indexOf("### Quick start")
  expect(from, "README has a quick start").toBeGreaterThan(-1)
  // Up to the next heading (a `#` comment in a code block is no heading: headings here have two or more).
  const next = readme.slice(from + 1).search(/\n#{2,6} /)
  const section = readme.slice(from, next === -1 ? undefined : from + 1 + next)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) =>
    block[1]!.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#")),
  )
}

/** Runs `script` with `sh` in `cwd`, as a user's shell would, on a PATH that has Node but not Bun. */
const shell = (script: string, cwd: string, path: string, env: Record<string, string> = {}) =>
  runCli(["-ec", script], { cwd, env: { PATH: path, ...env }, command: ["sh"] })

/** A directory whose `bin/` holds what `npm link` put there (a temporary global prefix). */
let linked: string
beforeAll(async () => {
  const [install] = quickStart()
  expect(install).toEqual([expect.stringMatching(/^npm link\b/)])
  linked = tempDir("oc2-prefix-")
  // The README's own line, in the checkout, with the global prefix pointed at the temporary one; offline:
  // linking a folder needs nothing from the registry. npm's cache and logs go to a temporary home.
  const home = tempDir()
  const result = await shell(install![0]!, ROOT, NODE_PATH, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_DATA_HOME: join(home, "data"),
    NPM_CONFIG_CACHE: join(home, "npm-cache"),
    NPM_CONFIG_PREFIX: linked,
    NPM_CONFIG_OFFLINE: "true",
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
    NPM_CONFIG_AUDIT: "false",
    NPM_CONFIG_FUND: "false",
  })
  expect(result.code, result.stderr).toBe(0)
}, 120_000)

describe("the README's quick start, on a machine with Node and npm", () => {
  it("puts opencode2 on PATH; run from demo/ edits demo/a.ts and exits 0", async () => {
    // The blocks after `npm link`: making demo/, the terminal UI, then `run`. The terminal UI needs a terminal
    // (packages/tui's tests drive it in one), so its line is left out here; without a terminal the ask needs
    // an answer on the command line; otherwise the commands are the README's.
    const demo = quickStart().slice(1).flat()
    expect(demo).toContainEqual(expect.stringMatching(/^opencode2\s+# the terminal UI/))
    const script = demo
      .filter((line) => !/^opencode2\s+#/.test(line))
      .map((line) => (line.startsWith("opencode2 run ") ? `${line} --yes` : line))
      .join("\n")
    expect(script).toContain(`opencode2 run '${edit}' --yes`)
    const home = tempDir()
    const path = [join(linked, "bin"), NODE_PATH].join(delimiter)
    const result = await shell(script, home, path)
    expect(result.code, result.stderr).toBe(0)
    expect(readFileSync(join(home, "demo", "a.ts"), "utf8")).toBe("const answer = 42\n")
    expect(result.stderr).toContain('✓ edit a.ts  edited "a.ts" (1 replacement)')
    expect(result.stdout).toBe('edit returned: edited "a.ts" (1 replacement)\n')

    // The session belongs to demo/, the directory the command ran in.
    const sessionID = /^session (ses_\w+)$/m.exec(result.stderr)![1]!
    const show = await shell(`cd demo && opencode2 session show ${sessionID}`, home, path)
    expect(show.code, show.stderr).toBe(0)
    expect(show.stdout).toContain(`directory ${realpathSync(join(home, "demo"))}`)
  }, 60_000)

  it("a failing turn, or an ask nobody may answer, exits 1 with how the turn ended before the usage line", async () => {
    const demo = join(tempDir(), "demo")
    mkdirSync(demo)
    writeFileSync(join(demo, "a.ts"), "const answer = 41\n")
    const path = [join(linked, "bin"), NODE_PATH].join(delimiter)

    const failed = await shell(`opencode2 run '/error the model broke'`, demo, path)
    expect(failed.code, failed.stderr).toBe(1)
    const failedLines = failed.stderr.trimEnd().split("\n")
    expect(failedLines.at(-2)).toMatch(/^turn failed: .*the model broke$/)
    expect(failedLines.at(-1)).toMatch(/^done in \d+\.\ds$/)

    const refused = await shell(`opencode2 run '${edit}'`, demo, path)
    expect(refused.code, refused.stderr).toBe(1)
    expect(readFileSync(join(demo, "a.ts"), "utf8")).toBe("const answer = 41\n")
    const refusedLines = refused.stderr.trimEnd().split("\n")
    expect(refusedLines.at(-2)).toBe("turn stopped: permission for edit a.ts was rejected")
    expect(refusedLines.at(-1)).toMatch(/^usage: \d+ in, \d+ out tokens · \d+\.\ds$/)
  }, 60_000)

  it("node bin/opencode2 works from any directory, resolving relative paths from it", async () => {
    const here = tempDir()
    writeFileSync(join(here, "a.ts"), "const answer = 41\n")
    // A project's bunfig.toml preload and .env are not applied to opencode2 (either would show: the preload
    // prints, and the log level from .env is refused).
    writeFileSync(join(here, "bunfig.toml"), 'preload = ["./preload.ts"]\n')
    writeFileSync(join(here, "preload.ts"), 'console.log("PRELOADED")\n')
    writeFileSync(join(here, ".env"), "OPENCODE_LOG_LEVEL=from-dotenv\n")
    // The directory's opencode.json applies: its agent exists.
    writeFileSync(join(here, "opencode.json"), JSON.stringify({ agent: { here: {} } }))
    const result = await runCli(["run", "--db", "local.db", "--agent", "here", "--allow", "edit", edit], {
      cwd: here,
      env: { PATH: NODE_PATH },
      command: [NODE, SHIM],
    })
    expect(result.code, result.stderr).toBe(0)
    expect(readFileSync(join(here, "a.ts"), "utf8")).toBe("const answer = 42\n")
    expect(result.stdout).toBe('edit returned: edited "a.ts" (1 replacement)\n')
    expect(existsSync(join(here, "local.db"))).toBe(true)
    const list = await runCli(["session", "list", "--db", "local.db"], {
      cwd: here,
      env: { PATH: NODE_PATH },
      command: [NODE, SHIM],
    })
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^ses_\w+ {2}\/tool edit/)
  }, 60_000)
})
