/**
 * The real Node.js, for tests of what a machine with only Node and npm runs (`npm start`, `bin/opencode2`).
 * Under `bun --bun` the PATH starts with a directory whose `node` is Bun itself; that directory is left out
 * here, both to find Node and in the PATH handed to children (npm is a `#!/usr/bin/env node` script).
 */
import { existsSync, realpathSync } from "node:fs"
import { basename, delimiter, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url))

const isBun = (file: string) => basename(realpathSync(file)).startsWith("bun")

/** PATH without Bun's stand-in for `node`. */
export const NODE_PATH = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => {
    const node = join(dir, "node")
    return !(existsSync(node) && isBun(node))
  })
  .join(delimiter)

const found = NODE_PATH.split(delimiter)
  .map((dir) => join(dir, "node"))
  .find((file) => existsSync(file))
if (!found) throw new Error("these tests need Node.js on PATH (the README's premise: a machine with Node and npm)")

/** The Node.js binary. */
export const NODE = found
