/**
 * Done-when of "plugin authors install in one step": `npm run pack` (scripts/pack.mjs) writes the tarballs,
 * and a plugin project in a temp dir outside the workspace installs them with `npm install <tarballs>` and
 * nothing else (no `overrides`: every `@opencode-ai/*` must resolve to its tarball, never to npm, where those
 * names are upstream's v1). Then, in that project, once installed:
 * - the packed manifests point `types`/`import`/`default` at `dist/` only, with workspace ranges resolved;
 * - its plugin test passes under `bun test` and under vitest on Bun (`bun --bun vitest run`);
 * - under Node.js (the system Node, 20 here) vitest and a plain import refuse with the message naming the fix;
 * - the test files pass `tsc --strict` with the documented tsconfig (and misuse of the kit fails it).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { NODE, NODE_PATH, ROOT } from "./support/node.ts"

const template = fileURLToPath(new URL("./fixtures/plugin-project/", import.meta.url))

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly bin?: Record<string, string>
  readonly exports?: unknown
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest

const work = mkdtempSync(join(tmpdir(), "opencode2-plugin-project-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A child's environment: the real Node first (npm and tsc are Node scripts), none of this vitest run's variables. */
const childEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(__)?VITEST|^TEST$|^NODE_ENV$/.test(key))),
  PATH: NODE_PATH,
  NO_COLOR: "1",
  FORCE_COLOR: "0",
})

const run = async (command: ReadonlyArray<string>, cwd: string) => {
  const child = Bun.spawn([...command], { cwd, stdout: "pipe", stderr: "pipe", env: childEnv() })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  return { code, output: `${stdout}\n${stderr}` }
}

/** Every string an export map can resolve to, with the conditions that lead there. */
const targets = (value: unknown, path: ReadonlyArray<string> = []): Array<{ path: string; target: string }> =>
  typeof value === "string"
    ? [{ path: path.join(" > "), target: value }]
    : value && typeof value === "object"
      ? Object.entries(value).flatMap(([key, inner]) => targets(inner, [...path, key]))
      : []

const REFUSAL = /needs the Bun runtime[\s\S]*Node\.js \d+\.[\s\S]*`bun test` or `bun --bun vitest run`/

describe("the kit from an external plugin project", () => {
  it("installs from `npm run pack`'s tarballs alone and tests a plugin under bun test and vitest, with tsc --strict", async () => {
    const packs = join(work, "packs")
    const project = join(work, "my-plugin")
    mkdirSync(join(project, "test"), { recursive: true })

    const packed = await run([NODE, join(ROOT, "scripts/pack.mjs"), "--out", packs], ROOT)
    expect(packed.code, packed.output).toBe(0)
    const tarballs = readdirSync(packs)
      .filter((file) => file.endsWith(".tgz"))
      .map((file) => join(packs, file))
    // The sdk, the plugin and the kit's package, with every workspace package they need at run time.
    const names = tarballs.map((file) => /opencode-ai-(\w+)-/.exec(file)![1]!).sort()
    expect(names).toEqual(["app", "core", "plugin", "protocol", "schema", "sdk", "server"])
    // The command the script prints is the whole installation.
    expect(packed.output).toContain("npm install ")

    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-plugin", private: true, type: "module" }))
    cpSync(join(template, "vitest.config.ts"), join(project, "vitest.config.ts"))
    cpSync(join(template, "tsconfig.json"), join(project, "tsconfig.json"))
    cpSync(join(template, "src"), join(project, "src"), { recursive: true })
    cpSync(join(template, "test/plugin.vitest.ts"), join(project, "test/plugin.test.ts"))
    cpSync(join(template, "test/types-check.ts"), join(project, "test/types-check.ts"))
    const devTools = manifestOf(join(ROOT, "packages/server")).devDependencies!
    const installed = await run(
      [
        "npm",
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        ...tarballs,
        `vitest@${devTools.vitest}`,
        `typescript@${devTools.typescript}`,
      ],
      project,
    )
    expect(installed.code, installed.output).toBe(0)
    expect(manifestOf(project)).not.toHaveProperty("overrides")

    // Every `@opencode-ai/*` in the tree is one copy, from its tarball.
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; version?: string }>
    }
    const ours = Object.entries(lock.packages).filter(([path]) => path.includes("node_modules/@opencode-ai/"))
    expect(ours.map(([path]) => path).sort()).toEqual(names.map((name) => `node_modules/@opencode-ai/${name}`))
    for (const [path, entry] of ours) expect(entry.resolved, path).toMatch(/^file:.*\.tgz$/)

    // The packed manifests: code and types in dist/ only, no source conditions, no workspace ranges.
    for (const name of names) {
      const manifest = manifestOf(join(project, "node_modules/@opencode-ai", name))
      for (const { path, target } of targets(manifest.exports)) {
        expect(path, `${name}: ${path}`).not.toMatch(/\b(bun|development)\b/)
        // The web client's page is the one non-code export: an HTML file Bun bundles when it is served.
        if (!target.endsWith(".html")) expect(target, `${name}: ${path}`).toMatch(/^\.\/dist\/.*\.(js|d\.ts)$/)
      }
      for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
        expect(range, `${name} -> ${dep}`).not.toMatch(/^workspace:/)
      }
      for (const bin of Object.values(manifest.bin ?? {})) expect(bin).toMatch(/^\.\/dist\/.*\.js$/)
    }

    const bunTest = await run([process.execPath, "test"], project)
    expect(bunTest.code, bunTest.output).toBe(0)
    expect(bunTest.output).toMatch(/\b2 pass\b/)

    const vitestOnBun = await run([process.execPath, "--bun", "vitest", "run"], project)
    expect(vitestOnBun.code, vitestOnBun.output).toBe(0)
    expect(vitestOnBun.output).toMatch(/Tests\s+2 passed/)

    // Under Node.js the kit cannot run (its host is built on Bun): both ways in say so, and what to run.
    const vitestOnNode = await run([NODE, "node_modules/vitest/vitest.mjs", "run"], project)
    expect(vitestOnNode.code).not.toBe(0)
    expect(vitestOnNode.output).toMatch(REFUSAL)
    const importOnNode = await run(
      [NODE, "--input-type=module", "-e", 'await import("@opencode-ai/server/testing")'],
      project,
    )
    expect(importOnNode.code).not.toBe(0)
    expect(importOnNode.output).toMatch(REFUSAL)

    const tsc = await run([NODE, "node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], project)
    expect(tsc.output.trim()).toBe("")
    expect(tsc.code).toBe(0)
  }, 300_000)
})
