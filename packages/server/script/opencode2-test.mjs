#!/usr/bin/env node
// `opencode2-test [ARGS...]`: runs a plugin project's tests on Bun, which the test kit needs (the host it
// starts uses bun:sqlite and Bun.serve), from a machine with only Node.js and npm. Like the repository's
// own `npm start` / `npm test`, it uses the pinned Bun: one already on PATH at that version, else the one
// it installed from npm into the user's cache on an earlier run, else it installs it there now and says so.
// Without ARGS it runs `bun --bun vitest run`; with them, `bun ARGS` (e.g. `opencode2-test test`).
// Signals are passed on to Bun, and this process ends the way Bun ended.
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"

/** The Bun the host is built and tested with (the repository's `packageManager`; a test checks they agree). */
export const PINNED_BUN = "1.4.4"

const windows = process.platform === "win32"
const cacheHome = process.env.XDG_CACHE_HOME || join(homedir(), ".cache")
const prefix = join(cacheHome, "opencode2", `bun-${PINNED_BUN}`)
const cached = join(prefix, "node_modules", ".bin", windows ? "bun.exe" : "bun")

const versionOf = (bun) => {
  const probe = spawnSync(bun, ["--version"], { encoding: "utf8" })
  return probe.status === 0 ? probe.stdout.trim() : undefined
}

/** The pinned Bun's path, installing it into the cache first when neither PATH nor the cache has it. */
const pinnedBun = () => {
  if (versionOf("bun") === PINNED_BUN) return "bun"
  if (existsSync(cached) && versionOf(cached) === PINNED_BUN) return cached
  console.error(`opencode2-test: the test kit runs on Bun; installing bun@${PINNED_BUN} into ${prefix} (once)`)
  const npm = windows ? "npm.cmd" : "npm"
  const installed = spawnSync(
    npm,
    ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `bun@${PINNED_BUN}`],
    { stdio: ["ignore", "ignore", "inherit"] },
  )
  if (installed.status !== 0 || versionOf(cached) !== PINNED_BUN) {
    console.error(`opencode2-test: could not install bun@${PINNED_BUN} with npm (see above)`)
    process.exit(1)
  }
  return cached
}

const args = process.argv.slice(2)
const bun = pinnedBun()
const child = spawn(bun, args.length > 0 ? args : ["--bun", "vitest", "run"], { stdio: "inherit" })
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"]
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
}
for (const signal of FORWARDED) process.on(signal, forward)
child.on("error", (error) => {
  console.error(`opencode2-test: cannot start ${bun}: ${error.message}`)
  process.exit(1)
})
child.on("exit", (code, signal) => {
  for (const name of FORWARDED) process.off(name, forward)
  if (signal === null) process.exit(code ?? 1)
  process.kill(process.pid, signal)
})
