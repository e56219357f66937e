#!/usr/bin/env node
/**
 * `node ../../scripts/build-package.mjs` from a publishable package (`plugin`, `sdk`): emits `dist/` with
 * `tsc -p tsconfig.build.json` (ESM JavaScript, relative `.ts` imports rewritten to `.js`), then rewrites
 * the relative `.ts` specifiers tsc leaves in declaration files, so `dist/` works from Node 20 and from a
 * plain `tsc` (any module resolution) without `allowImportingTsExtensions`.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

const dist = join(process.cwd(), "dist")
rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(join(process.cwd(), "package.json")).resolve("typescript/bin/tsc")
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" })

const SPECIFIER = /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith(".d.ts")) {
      const text = readFileSync(path, "utf8")
      const rewritten = text.replace(SPECIFIER, "$1$2.js$3")
      if (rewritten !== text) writeFileSync(path, rewritten)
    }
  }
}
walk(dist)
console.log(`built ${dist}`)
