/**
 * Vitest runs the server's modules through Vite, which cannot import an HTML file as a module. Bun can:
 * `import index from "./index.html"` gives an `HTMLBundle` whose `index` is the file's path (and, in a
 * binary built ahead of time, its bundled `files`). This plugin gives Vite the same shape, so code that
 * imports the web client's page runs under vitest exactly as it does under `bun run`.
 */
export const htmlImport = () => ({
  name: "opencode2:bun-html-import",
  enforce: "pre" as const,
  load(id: string) {
    const path = id.split("?")[0]!
    if (!path.endsWith(".html")) return undefined
    return `export default { index: ${JSON.stringify(path)} }`
  },
})
