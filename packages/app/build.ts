/**
 * Builds the web client from source with Bun's bundler, in memory: `index.html`, its script (Preact, TSX)
 * and its stylesheet, minified, with asset URLs rooted at `/` so every page path (`/session/<id>`) loads
 * them. The server uses this when it runs from source; the compiled binary embeds the same page through
 * an HTML import instead, bundled at compile time.
 */
import { fileURLToPath } from "node:url"

/** The page the bundle starts from (`src/` beside this file, or beside `dist/` once packed). */
export const ENTRY = fileURLToPath(
  new URL(import.meta.url.endsWith("/dist/build.js") ? "../src/index.html" : "./src/index.html", import.meta.url),
)

/** One file of the built client, addressed by its URL path (`/index.html`, `/chunk-<hash>.js`...). */
export interface AppFile {
  readonly path: string
  readonly type: string
  readonly body: Blob
  /** The page itself (served at every client route); the others are content-hashed chunks. */
  readonly entry: boolean
}

export class AppBuildError extends Error {
  override readonly name = "AppBuildError"
}

export const buildApp = async (entry: string = ENTRY): Promise<ReadonlyArray<AppFile>> => {
  const result = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    minify: true,
    // Highlighter grammars are dynamic imports: separate chunks, fetched when a code block needs one.
    splitting: true,
    publicPath: "/",
    sourcemap: "none",
    throw: false,
  })
  if (!result.success) {
    throw new AppBuildError(`the web client failed to build:\n${result.logs.map((log) => String(log)).join("\n")}`)
  }
  return result.outputs.map((output) => ({
    path: `/${output.path.replace(/^\.?\//, "")}`,
    type: output.type,
    body: output,
    entry: output.path.endsWith(".html"),
  }))
}
