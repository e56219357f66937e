/**
 * This SDK as a drop-in for upstream's: a program written against upstream OpenCode's published
 * `@opencode-ai/sdk/v2` (1.19.3; the `upstream-sdk` devDependency) compiles with `tsc --strict` against
 * upstream's package, then unchanged against this repository's SDK installed in its place (packed, as an
 * outside project installs it), and that build runs under Node 20 against a live server.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { NODE, NODE_PATH } from "./support/node.ts"
import { startTestServer } from "./support/server.ts"

const PACKAGES = fileURLToPath(new URL("../../", import.meta.url))
const PROGRAM = fileURLToPath(new URL("./fixtures/upstream-program/main.ts", import.meta.url))
const UPSTREAM = join(PACKAGES, "server", "node_modules", "upstream-sdk")
const TSC = join(PACKAGES, "server", "node_modules", "typescript", "bin", "tsc")

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const exec = async (cmd: ReadonlyArray<string>, cwd: string) => {
  const child = Bun.spawn([...cmd], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, PATH: NODE_PATH, NO_COLOR: "1" },
  })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${code}) in ${cwd}:\n${stderr}\n${stdout}`)
  return stdout
}

/** A project holding the program, with `@opencode-ai/sdk` provided by `install`. */
const project = (root: string, name: string, install: (modules: string) => Promise<void> | void) => {
  const dir = join(root, name)
  mkdirSync(join(dir, "node_modules", "@opencode-ai"), { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }))
  copyFileSync(PROGRAM, join(dir, "main.ts"))
  return Promise.resolve(install(join(dir, "node_modules"))).then(() => dir)
}

const compile = (dir: string) =>
  exec(
    [
      NODE,
      TSC,
      "--strict",
      "--skipLibCheck",
      "--module",
      "nodenext",
      "--target",
      "es2022",
      "--lib",
      "es2023,dom,dom.iterable",
      "--outDir",
      "out",
      "main.ts",
    ],
    dir,
  )

describe("a program written against upstream's published SDK", () => {
  it("compiles against upstream's package and against this SDK in its place, and runs under Node", async () => {
    const root = mkdtempSync(join(tmpdir(), "opencode2-drop-in-"))
    dirs.push(root)

    // Against upstream's own declarations: the program is a valid upstream program.
    const upstream = await project(root, "against-upstream", (modules) =>
      symlinkSync(UPSTREAM, join(modules, "@opencode-ai", "sdk"), "dir"),
    )
    await compile(upstream)

    // This SDK, packed as it is published and installed in its place.
    const packs = join(root, "packs")
    mkdirSync(packs)
    await exec([process.execPath, "pm", "pack", "--destination", packs, "--quiet"], join(PACKAGES, "sdk"))
    const tarball = join(
      packs,
      readdirSync(packs).find((file) => file.startsWith("opencode-ai-sdk-"))!,
    )
    const ours = await project(root, "against-this-sdk", () => undefined)
    await exec(["npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], ours)
    await compile(ours)

    const server = await startTestServer()
    const report = JSON.parse(await exec([NODE, join(ours, "out", "main.js"), server.url, server.directory], ours)) as {
      healthy: boolean
      directory: string
      sessionDirectory: string
      admitted: string
      texts: Array<string>
      types: Array<string>
      historyTypes: Array<string>
      seen: Array<string>
      agents: Array<string>
    }
    expect(report.healthy).toBe(true)
    // The client's `directory` reached the server as upstream's client sends it.
    expect(report.directory).toBe(server.directory)
    expect(report.sessionDirectory).toBe(server.directory)
    expect(report.admitted).toMatch(/^msg_/)
    expect(report.types).toEqual(["user", "assistant"])
    expect(report.texts).toEqual(["hello from upstream's client", "You said: hello from upstream's client"])
    expect(report.historyTypes).toContain("session.next.prompt.admitted")
    expect(report.historyTypes).toContain("session.next.step.ended")
    expect(report.seen[0]).toBe("server.connected")
    expect(report.seen).toContain("session.next.text.delta")
    expect(report.seen.at(-1)).toBe("session.next.step.ended")
    expect(report.agents).toContain("build")

    // What the server stored agrees with what the program saw.
    const stored = await server.api.session.messages({ sessionID: (await server.api.session.list()).data!.data[0]!.id })
    expect(stored.data!.data.map((m) => m.type)).toEqual(report.types)
    await server.stop()
  }, 240_000)
})
