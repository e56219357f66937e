#!/usr/bin/env node
/**
 * `npm run pack [-- --out DIR]` at the root: writes installable tarballs of the packages a plugin author
 * needs - `@opencode-ai/sdk`, `@opencode-ai/plugin`, the test kit (`@opencode-ai/server`, whose
 * `./testing` export it is) and every workspace package those depend on - into `dist/packs/` (or DIR).
 * A plugin project then runs `npm install <those tarballs>` and nothing else.
 *
 * Each package is built (`dist/`), then staged in a scratch directory with a rewritten manifest, and packed
 * from there with `npm pack`:
 * - `workspace:*` dependencies become the sibling's exact version (its tarball is in the same set, so npm
 *   resolves the name to it without `overrides`);
 * - the `bun` and `development` export conditions, which point at `src/*.ts` for the monorepo's own use,
 *   are dropped, so `types`, `import` and `default` point at `dist/` only;
 * - `scripts` and `devDependencies` are dropped (they name workspace tools), `bin` points at `dist/`.
 * The source manifests are never touched. On a fresh checkout (no `node_modules/`) the pinned Bun and the
 * workspace dependencies are installed first, as `npm test` does, since the builds need TypeScript.
 */
import { execFileSync, execSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, posix, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { prepare } from "./pinned-bun.mjs"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
/** What a plugin author installs; their workspace dependencies come along. */
const WANTED = ["@opencode-ai/sdk", "@opencode-ai/plugin", "@opencode-ai/server"]
/** Export conditions that point at sources, for the monorepo only. */
const SOURCE_CONDITIONS = new Set(["bun", "development"])

const args = process.argv.slice(2)
const outIndex = args.indexOf("--out")
const out = resolve(outIndex >= 0 && args[outIndex + 1] ? args[outIndex + 1] : join(ROOT, "dist", "packs"))

const readManifest = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** Workspace packages by name. */
const workspace = new Map(
  readdirSync(join(ROOT, "packages"))
    .map((entry) => join(ROOT, "packages", entry))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => [readManifest(dir).name, { dir, manifest: readManifest(dir) }]),
)

/** The wanted packages and their workspace dependencies, dependencies first (the build order). */
const ordered = []
const visit = (name, path = []) => {
  if (ordered.includes(name)) return
  if (path.includes(name)) throw new Error(`workspace dependency cycle: ${[...path, name].join(" -> ")}`)
  const pkg = workspace.get(name)
  if (!pkg) throw new Error(`${path.at(-1)} depends on ${name}, which is not a workspace package`)
  for (const [dep, range] of Object.entries(pkg.manifest.dependencies ?? {})) {
    if (range.startsWith("workspace:")) visit(dep, [...path, name])
  }
  ordered.push(name)
}
WANTED.forEach((name) => visit(name))

/** An export target with the source conditions removed; `undefined` if nothing is left. */
const withoutSources = (target) => {
  if (typeof target === "string" || target === null) return target
  if (Array.isArray(target)) return target.map(withoutSources).filter((entry) => entry !== undefined)
  const kept = Object.entries(target)
    .filter(([condition]) => !SOURCE_CONDITIONS.has(condition))
    .map(([condition, value]) => [condition, withoutSources(value)])
    .filter(([, value]) => value !== undefined)
  return kept.length > 0 ? Object.fromEntries(kept) : undefined
}

/** Every string an export map can resolve to. */
const targetsOf = (target) =>
  typeof target === "string"
    ? [target]
    : target && typeof target === "object"
      ? Object.values(target).flatMap(targetsOf)
      : []

/** Where `src/` lands in `dist/`, read off the root export (`./src/index.ts` -> `./dist/src/index.js`). */
const distDirOf = (manifest) => {
  const root = manifest.exports?.["."]
  if (!root || typeof root !== "object" || !root.bun || !root.import) return undefined
  return { src: posix.dirname(root.bun), dist: posix.dirname(root.import) }
}

/** The manifest a tarball carries. */
const packedManifest = (manifest, versions) => {
  const { scripts: _scripts, devDependencies: _devDependencies, ...packed } = manifest
  if (packed.dependencies) {
    packed.dependencies = Object.fromEntries(
      Object.entries(packed.dependencies).map(([dep, range]) => [
        dep,
        range.startsWith("workspace:") ? versions.get(dep) : range,
      ]),
    )
  }
  if (packed.exports) packed.exports = withoutSources(packed.exports)
  if (packed.bin) {
    const layout = distDirOf(manifest)
    const moved = (path) => {
      if (!path.endsWith(".ts")) return path
      if (!layout || !path.startsWith(`${layout.src}/`))
        throw new Error(`${manifest.name}: no built file for bin ${path}`)
      return `${layout.dist}${path.slice(layout.src.length).replace(/\.ts$/, ".js")}`
    }
    packed.bin =
      typeof packed.bin === "string"
        ? moved(packed.bin)
        : Object.fromEntries(Object.entries(packed.bin).map(([command, path]) => [command, moved(path)]))
  }
  // Code points at `dist/` only: a `.ts` target would make a consumer's bundler or tsc compile our sources.
  for (const target of [...targetsOf(packed.exports), packed.main, packed.types].filter(Boolean)) {
    if (/\.(c|m)?tsx?$/.test(target) && !/\.d\.(c|m)?ts$/.test(target)) {
      throw new Error(`${manifest.name}: packed export ${target} points at a source file`)
    }
  }
  return packed
}

if (!existsSync(join(ROOT, "node_modules", "typescript")) && prepare() !== 0) process.exit(1)

const run = (command, cwd) => execSync(command, { cwd, stdio: ["ignore", "inherit", "inherit"] })

rmSync(out, { recursive: true, force: true })
const stage = join(out, ".stage")
mkdirSync(stage, { recursive: true })
const versions = new Map(ordered.map((name) => [name, workspace.get(name).manifest.version]))
const tarballs = []
for (const name of ordered) {
  const { dir, manifest } = workspace.get(name)
  if (manifest.scripts?.build) run(manifest.scripts.build, dir)
  const staged = join(stage, name.replace("/", "__"))
  mkdirSync(staged, { recursive: true })
  for (const entry of [...(manifest.files ?? []), ...readdirSync(dir).filter((f) => /^(readme|license)/i.test(f))]) {
    if (existsSync(join(dir, entry))) cpSync(join(dir, entry), join(staged, entry), { recursive: true })
  }
  const packed = packedManifest(manifest, versions)
  writeFileSync(join(staged, "package.json"), `${JSON.stringify(packed, null, 2)}\n`)
  for (const target of targetsOf(packed.exports).filter((path) => !path.includes("*"))) {
    if (!existsSync(join(staged, target)))
      throw new Error(`${name}: packed export ${target} is missing after the build`)
  }
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const report = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", out], {
    cwd: staged,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
  const [{ filename }] = JSON.parse(report)
  tarballs.push(join(out, filename))
}
rmSync(stage, { recursive: true, force: true })

const relative = (path) => (path.startsWith(`${process.cwd()}/`) ? path.slice(process.cwd().length + 1) : path)
console.log(`\nPacked ${tarballs.length} packages into ${relative(dirname(tarballs[0]))}/. In a plugin project:\n`)
console.log(`  npm install ${tarballs.map(relative).join(" ")}\n`)
