import type { Grammar } from "./grammar.ts"

/**
 * The fence names the highlighter knows, each loaded on first use as its own chunk: the page's bundle
 * carries none of the grammars.
 */
const LOADERS: Readonly<Record<string, () => Promise<Grammar>>> = {
  typescript: () => import("./languages/typescript.ts").then((m) => m.typescript),
  javascript: () => import("./languages/typescript.ts").then((m) => m.typescript),
  json: () => import("./languages/json.ts").then((m) => m.json),
  bash: () => import("./languages/bash.ts").then((m) => m.bash),
  python: () => import("./languages/python.ts").then((m) => m.python),
  go: () => import("./languages/go.ts").then((m) => m.go),
  rust: () => import("./languages/rust.ts").then((m) => m.rust),
  diff: () => import("./languages/diff.ts").then((m) => m.diff),
}

const ALIASES: Readonly<Record<string, string>> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsonc: "json",
  json5: "json",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  shellsession: "bash",
  py: "python",
  golang: "go",
  rs: "rust",
  patch: "diff",
}

/** The grammar's canonical name for a fence's info word, or undefined when it has none. */
export const languageOf = (info: string): string | undefined => {
  const name = info.toLowerCase()
  const canonical = ALIASES[name] ?? name
  return canonical in LOADERS ? canonical : undefined
}

const loaded = new Map<string, Grammar>()
const loading = new Map<string, Promise<Grammar | undefined>>()

/** The grammar when it is already loaded (so a re-render highlights at once, without a plain frame). */
export const loadedGrammar = (language: string): Grammar | undefined => loaded.get(language)

/** Loads a grammar once; a failed load (a chunk the server no longer has) resolves undefined and is retried next time. */
export const loadGrammar = (language: string): Promise<Grammar | undefined> => {
  const done = loaded.get(language)
  if (done) return Promise.resolve(done)
  let pending = loading.get(language)
  if (!pending) {
    pending = LOADERS[language]!().then(
      (grammar) => {
        loaded.set(language, grammar)
        loading.delete(language)
        return grammar
      },
      () => {
        loading.delete(language)
        return undefined
      },
    )
    loading.set(language, pending)
  }
  return pending
}
