#!/usr/bin/env node
// Runs Bun on a machine that only has Node.js and npm: installs the pinned Bun into .tools/ on first use,
// installs the workspace dependencies from bun.lock, then hands the arguments to Bun.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1]
const tools = join(root, ".tools")
const bin = join(tools, "node_modules", ".bin")
const bun = join(bin, process.platform === "win32" ? "bun.exe" : "bun")

const run = (cmd, args, opts = {}) => {
  const result = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts })
  if (result.error) throw result.error
  return result.status ?? 1
}

const installed = () => {
  if (!existsSync(bun)) return false
  const probe = spawnSync(bun, ["--version"], { encoding: "utf8" })
  return probe.status === 0 && probe.stdout.trim() === version
}

if (!installed()) {
  console.error(`installing bun@${version} into .tools/`)
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  const status = run(npm, [
    "install",
    "--prefix",
    tools,
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    `bun@${version}`,
  ])
  if (status !== 0 || !installed()) {
    console.error(`could not install bun@${version}`)
    process.exit(1)
  }
}

const env = {
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  ...process.env,
  PATH: `${bin}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}`,
}
const deps = run(bun, ["install", "--frozen-lockfile"], { env, stdio: ["inherit", "ignore", "inherit"] })
if (deps !== 0) process.exit(deps)
process.exit(run(bun, process.argv.slice(2), { env }))
