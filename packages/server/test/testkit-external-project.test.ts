/**
 * Done-when of the plugin test kit: a plugin project in a temp dir outside the workspace installs the
 * packed packages (`bun pm pack` tarballs of `plugin`, `server` and every workspace package they depend on -
 * never `@opencode-ai/*` from npm, which are upstream's v1) and runs a vitest file that uses
 * `@opencode-ai/server/testing`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const template = fileURLToPath(new URL("./fixtures/plugin-project/", import.meta.url))

interface Manifest {
  readonly name: string
  readonly version: string
  readonly scripts?: Record<string, string>
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest

/** Workspace packages by name. */
const workspace = new Map(
  readdirSync(join(root, "packages"))
    .map((entry) => join(root, "packages", entry))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => [manifestOf(dir).name, dir] as const),
)

/** `names` and the workspace packages they need at run time, transitively. */
const closure = (names: ReadonlyArray<string>) => {
  const found = new Set<string>()
  const visit = (name: string) => {
    if (found.has(name)) return
    found.add(name)
    for (const [dep, range] of Object.entries(manifestOf(workspace.get(name)!).dependencies ?? {})) {
      if (range.startsWith("workspace:")) visit(dep)
    }
  }
  names.forEach(visit)
  return [...found]
}

const work = mkdtempSync(join(tmpdir(), "opencode2-plugin-project-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A child's environment without the variables of the vitest run that spawned it. */
const childEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(__)?VITEST|^TEST$|^NODE_ENV$/.test(key)))

const run = async (command: Array<string>, cwd: string) => {
  const child = Bun.spawn(command, {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...childEnv(), NO_COLOR: "1", FORCE_COLOR: "0" },
  })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  return { code, output: `${stdout}\n${stderr}` }
}

/** `bun pm pack` of one workspace package (after its `build`, if it has one) into `into`; returns the tarball. */
const pack = async (name: string, into: string) => {
  const dir = workspace.get(name)!
  const manifest = manifestOf(dir)
  if (manifest.scripts?.build) {
    const built = await run([process.execPath, "run", "build"], dir)
    expect(built.code, built.output).toBe(0)
  }
  const packed = await run([process.execPath, "pm", "pack", "--destination", into, "--quiet"], dir)
  expect(packed.code, packed.output).toBe(0)
  const tarball = packed.output
    .trim()
    .split("\n")
    .find((line) => line.endsWith(".tgz"))!
  const path = tarball.startsWith("/") ? tarball : join(into, tarball)
  expect(existsSync(path), path).toBe(true)
  return path
}

describe("the kit from an external plugin project", () => {
  it("installs the packed packages and proves preflight resume after a crash and busy-then-release with vitest", async () => {
    const tarballs = join(work, "tarballs")
    const project = join(work, "my-plugin")
    mkdirSync(tarballs)
    mkdirSync(join(project, "src"), { recursive: true })
    mkdirSync(join(project, "test"))
    const packages = closure(["@opencode-ai/plugin", "@opencode-ai/server"])
    expect(packages).toEqual(expect.arrayContaining(["@opencode-ai/core", "@opencode-ai/sdk"]))
    const files: Record<string, string> = {}
    for (const name of packages) files[name] = `file:${await pack(name, tarballs)}`
    const { ["@opencode-ai/plugin"]: plugin, ...host } = files
    const vitest = manifestOf(workspace.get("@opencode-ai/server")!).devDependencies!.vitest
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify(
        {
          name: "my-plugin",
          private: true,
          type: "module",
          dependencies: { "@opencode-ai/plugin": plugin },
          devDependencies: { ...host, vitest },
          // The packed manifests name their siblings by version; pin those to the tarballs too.
          overrides: files,
        },
        null,
        2,
      ),
    )
    cpSync(join(template, "vitest.config.ts"), join(project, "vitest.config.ts"))
    cpSync(join(template, "src/plugin.ts"), join(project, "src/plugin.ts"))
    cpSync(join(template, "test/plugin.vitest.ts"), join(project, "test/plugin.test.ts"))

    const installed = await run([process.execPath, "install", "--prefer-offline"], project)
    expect(installed.code, installed.output).toBe(0)
    // Nothing of ours came from the registry: every one resolved to its tarball.
    const lock = readFileSync(join(project, "bun.lock"), "utf8")
    for (const [name, file] of Object.entries(files)) {
      expect(lock, name).toContain(file.slice("file:".length))
      expect(manifestOf(join(project, "node_modules", name)).version).toBe(manifestOf(workspace.get(name)!).version)
    }

    const tested = await run([process.execPath, "--bun", "vitest", "run"], project)
    expect(tested.output).toMatch(/Tests\s+2 passed/)
    expect(tested.code, tested.output).toBe(0)
  }, 240_000)
})
