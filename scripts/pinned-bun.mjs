// The repository's pinned Bun, started from Node.js: what `scripts/bun.mjs` (`npm start`, `npm test`) and
// `bin/opencode2` share. A machine with only Node.js and npm gets the Bun named by `packageManager`
// installed into `.tools/` on first use and the workspace dependencies installed from `bun.lock`; then Bun
// runs as a child that receives the signals this process receives, and this process ends as it ended.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { constants } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1]
const tools = join(root, ".tools")
const bin = join(tools, "node_modules", ".bin")
const bun = join(bin, process.platform === "win32" ? "bun.exe" : "bun")

/** Signals handed on to Bun: a supervisor's SIGTERM, Ctrl-C, a closed terminal. */
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"]

/** Runs a setup step in the repository root, synchronously (nothing to forward yet); its exit status. */
const step = (cmd, args, opts = {}) => {
  const result = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts })
  if (result.error) throw result.error
  return result.status ?? 1
}

const installed = () => {
  if (!existsSync(bun)) return false
  const probe = spawnSync(bun, ["--version"], { encoding: "utf8" })
  return probe.status === 0 && probe.stdout.trim() === version
}

/** The environment Bun runs in: `.tools/` first on PATH (so scripts find `bun`), telemetry off. */
const environment = () => ({
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  ...process.env,
  PATH: `${bin}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}`,
})

/**
 * Makes sure the pinned Bun and the workspace dependencies are installed; returns the exit status of the
 * step that failed (its output is on stderr), or 0. Progress goes to stderr, so stdout stays the command's.
 */
export const prepare = () => {
  if (!installed()) {
    console.error(`installing bun@${version} into .tools/`)
    const npm = process.platform === "win32" ? "npm.cmd" : "npm"
    const status = step(
      npm,
      ["install", "--prefix", tools, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `bun@${version}`],
      { stdio: ["inherit", "ignore", "inherit"] },
    )
    if (status !== 0 || !installed()) {
      console.error(`could not install bun@${version}`)
      return status || 1
    }
  }
  return step(bun, ["install", "--frozen-lockfile"], { env: environment(), stdio: ["inherit", "ignore", "inherit"] })
}

/**
 * Runs `bun ...args` in `cwd` and ends this process the way Bun ended: with its exit code, or by the
 * signal that stopped it. SIGINT, SIGTERM and SIGHUP sent to this process are sent on to Bun, so stopping
 * the launcher stops what it launched instead of leaving it running (a server keeps its port otherwise).
 * While Bun runs, this process only waits: a signal does not end it before Bun has ended.
 */
export const launch = (args, { cwd = root } = {}) => {
  const prepared = prepare()
  if (prepared !== 0) process.exit(prepared)
  const child = spawn(bun, args, { cwd, env: environment(), stdio: "inherit" })
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
  for (const signal of FORWARDED) process.on(signal, forward)
  child.on("error", (error) => {
    console.error(`cannot start ${bun}: ${error.message}`)
    process.exit(1)
  })
  child.on("exit", (code, signal) => {
    for (const name of FORWARDED) process.off(name, forward)
    if (signal === null) process.exit(code ?? 1)
    // Stopped by one of the forwarded signals: die of it too, so a shell or supervisor sees what happened.
    // Otherwise (or should that not end this process) the shell's convention, 128 + the signal's number.
    if (FORWARDED.includes(signal)) process.kill(process.pid, signal)
    process.exit(128 + (constants.signals[signal] ?? 0))
  })
}
