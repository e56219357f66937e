#!/usr/bin/env node
// The pre-commit hook (`.githooks/pre-commit`; install once with `git config core.hooksPath .githooks`):
// formats the staged files with prettier and lints them with oxlint, then checks the import graph when a
// TypeScript file is staged. A file that also has unstaged changes is only checked, never rewritten, so the
// hook cannot slip unstaged work into the commit. Everything runs from node_modules: no network.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim()
const bin = (name) => join(root, "node_modules", ".bin", name)
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" })
const lines = (text) => text.split("\n").filter((line) => line.length > 0)

const staged = lines(git("diff", "--cached", "--name-only", "--diff-filter=ACMR")).filter((file) =>
  existsSync(join(root, file)),
)
if (staged.length === 0) process.exit(0)
const unstaged = new Set(lines(git("diff", "--name-only")))

const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: "inherit" }).status === 0
let ok = true

const whole = staged.filter((file) => !unstaged.has(file))
const partial = staged.filter((file) => unstaged.has(file))
if (whole.length > 0) {
  ok = run(bin("prettier"), ["--write", "--ignore-unknown", "--log-level", "warn", ...whole]) && ok
  git("add", "--", ...whole)
}
if (partial.length > 0) {
  console.error(`pre-commit: only checking (unstaged changes too): ${partial.join(", ")}`)
  ok = run(bin("prettier"), ["--check", "--ignore-unknown", "--log-level", "warn", ...partial]) && ok
}

const code = staged.filter((file) => /\.(ts|tsx|js|mjs|cjs)$/.test(file))
if (code.length > 0) ok = run(bin("oxlint"), code) && ok
if (staged.some((file) => /\.(ts|tsx)$/.test(file))) {
  ok = run(process.execPath, [join(root, "scripts", "bun.mjs"), "run", "scripts/check-imports.ts"]) && ok
}

if (!ok) {
  console.error("pre-commit: fix the problems above (`bun run format` rewrites formatting), or commit with --no-verify")
  process.exit(1)
}
