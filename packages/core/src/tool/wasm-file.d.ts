/**
 * `import path from "x.wasm" with { type: "file" }`: Bun gives the file's path (inside the compiled binary,
 * a path in its embedded file system), so the wasm ships inside `opencode2` and nothing sits beside it.
 * (Under vitest the files come from packages, which are loaded by Bun itself: the same path.)
 */
declare module "*.wasm" {
  const path: string
  export default path
}
