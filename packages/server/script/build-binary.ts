/**
 * `bun run script/build-binary.ts [--outfile PATH]`: compiles the `opencode2` CLI (with the server, the
 * core and its migrations, which ship as generated TypeScript) into one self-contained executable with
 * `bun build --compile`. Default output `packages/server/bin/opencode2` (gitignored).
 */
import { parseArgs } from "node:util"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"

export const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url))
export const ENTRY = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url))
/** The bundle's root: entry points are embedded at `/$bunfs/root/<path below it>`. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url))
/**
 * Workers are entry points of their own: `bun build --compile` embeds each beside the CLI, and the module
 * that starts one is told its embedded path through a define (from source it resolves the file itself).
 */
export const WORKERS: ReadonlyArray<{ readonly define: string; readonly path: string }> = [
  {
    define: "OPENCODE2_HTML_WORKER",
    path: fileURLToPath(new URL("../../core/src/tool/html-worker.ts", import.meta.url)),
  },
]
/**
 * The terminal UI's native core ships one npm package per platform; only this machine's is installed. The
 * others are left out of the bundle (the core imports the one for the platform it runs on), so the binary
 * embeds this platform's library.
 */
const OTHER_PLATFORM_CORES = [
  "darwin-x64",
  "darwin-arm64",
  "linux-x64",
  "linux-arm64",
  "linux-x64-musl",
  "linux-arm64-musl",
  "win32-x64",
  "win32-arm64",
]
  .filter((target) => target !== `${process.platform}-${process.arch}`)
  .flatMap((target) => ["--external", `@opentui/core-${target}`])

export const DEFAULT_OUTFILE = fileURLToPath(new URL("../bin/opencode2", import.meta.url))

/** Builds the binary at `outfile`; rejects with bun's output when the build fails. */
export const buildBinary = async (outfile: string = DEFAULT_OUTFILE): Promise<string> => {
  // Bytecode skips parsing the bundle at every start (about 290 -> 160 ms until listening); it needs the
  // ESM output format, since the bundle keeps `import.meta` and top-level await. Not minified, so stack
  // traces in logs keep their names.
  const defines = WORKERS.flatMap((w) => [
    "--define",
    `${w.define}=${JSON.stringify(`/$bunfs/root/${relative(ROOT, w.path)}`)}`,
  ])
  const args = [
    "build",
    "--compile",
    "--bytecode",
    "--format=esm",
    `--root=${ROOT}`,
    ...defines,
    ...OTHER_PLATFORM_CORES,
    "--outfile",
    outfile,
    ENTRY,
    ...WORKERS.map((w) => w.path),
  ]
  const child = Bun.spawn([process.execPath, ...args], {
    cwd: SERVER_DIR,
    stdout: "pipe",
    stderr: "pipe",
  })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  if (code !== 0) throw new Error(`bun build --compile failed (exit ${code}):\n${stderr}${stdout}`)
  return outfile
}

if (import.meta.main) {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { outfile: { type: "string" } }, strict: true })
  const outfile = await buildBinary(values.outfile)
  console.log(`built ${outfile}`)
}
