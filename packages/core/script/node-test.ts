/**
 * Runs core's Node tests (`test/node/*.node.test.ts`) on plain Node: Node 20 cannot run TypeScript and
 * vitest does not start on it, so Bun's bundler compiles each file to JavaScript for Node, and
 * `node --test` runs the output. Only the workspace's own sources are bundled: npm dependencies stay
 * imports that Node resolves itself (sql.js loads its WebAssembly file from beside itself, and Node picks
 * each package's entry for Node the way it would in a Node deployment).
 */
import { readdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
const source = join(root, "test", "node")
const outdir = join(root, ".node-test")
const entrypoints = readdirSync(source)
  .filter((name) => name.endsWith(".node.test.ts"))
  .map((name) => join(source, name))

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>
}
const external = Object.entries(manifest.dependencies)
  .filter(([, version]) => !version.startsWith("workspace:"))
  // The tree-sitter packages are bundled: their `*.wasm` files are imported as files, copied beside the output.
  .filter(([name]) => !name.includes("tree-sitter"))
  .flatMap(([name]) => [name, `${name}/*`])

rmSync(outdir, { recursive: true, force: true })
const built = await Bun.build({
  entrypoints,
  outdir,
  target: "node",
  format: "esm",
  conditions: ["development"],
  external,
  naming: "[name].mjs",
})
if (!built.success) {
  for (const log of built.logs) console.error(log)
  process.exit(1)
}

const node = process.env.NODE ?? "node"
const tests = built.outputs.map((output) => output.path).filter((path) => path.endsWith(".test.mjs"))
// Bun's bundler names a file import by a path relative to the output folder, so Node runs from there.
const child = Bun.spawn([node, "--test", "--test-reporter=spec", ...tests], {
  cwd: outdir,
  stdio: ["ignore", "inherit", "inherit"],
})
process.exit(await child.exited)
