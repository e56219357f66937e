// A reference, not an import: it brings the `*.wasm` declaration into every program that compiles this
// file (the server's typecheck too), and there is nothing to import at run time.
// oxlint-disable-next-line typescript/triple-slash-reference
/// <reference path="./wasm-file.d.ts" />
import { readFile } from "node:fs/promises"
import type { Node, Parser } from "web-tree-sitter"
import treeSitterWasm from "web-tree-sitter/tree-sitter.wasm" with { type: "file" }
import bashWasm from "tree-sitter-bash/tree-sitter-bash.wasm" with { type: "file" }

/**
 * Longest command line that is parsed (UTF-8 bytes). Parsing is synchronous and a pathological line can
 * take long; a longer line is not analysed at all (its permission is asked).
 */
export const BASH_MAX_PARSED_BYTES = 16 * 1024
/** Wall-clock budget of one parse; past it the parse is cancelled (and the line asked). */
export const BASH_PARSE_BUDGET_MS = 50

/** Why a line has no syntax tree. */
export type BashParseFailure = "too-long" | "syntax" | "budget" | "unavailable"

let parser: Promise<Parser> | undefined

/**
 * The tree-sitter bash grammar, loaded once. Both wasm files are imported as files, so `bun build
 * --compile` embeds them and the compiled binary parses without anything beside it. The library itself
 * is imported here, on the first bash call, not when the host starts.
 */
const load = (): Promise<Parser> =>
  (parser ??= (async () => {
    const { Language, Parser } = await import("web-tree-sitter")
    await Parser.init({ wasmBinary: new Uint8Array(await readFile(treeSitterWasm)) })
    const language = await Language.load(new Uint8Array(await readFile(bashWasm)))
    return new Parser().setLanguage(language)
  })().catch((error: unknown) => {
    parser = undefined
    throw error
  }))

/**
 * Parses `source` as bash and hands the root of its syntax tree to `use` (the tree is freed afterwards, so
 * `use` must not keep nodes). A line tree-sitter can only parse by error recovery (an ERROR or MISSING node
 * anywhere) is a `syntax` failure: the tree would be a guess at what bash does.
 */
export const withBashTree = async <A>(
  source: string,
  use: (root: Node) => A,
  options: { readonly budgetMs?: number } = {},
): Promise<{ readonly ok: true; readonly value: A } | { readonly ok: false; readonly failure: BashParseFailure }> => {
  if (Buffer.byteLength(source, "utf8") > BASH_MAX_PARSED_BYTES) return { ok: false, failure: "too-long" }
  let instance: Parser
  try {
    instance = await load()
  } catch {
    return { ok: false, failure: "unavailable" }
  }
  const deadline = performance.now() + (options.budgetMs ?? BASH_PARSE_BUDGET_MS)
  // A cancelled parse would resume on the next call; every parse starts from the beginning.
  instance.reset()
  const tree = instance.parse(source, null, {
    progressCallback: (() => performance.now() > deadline) as (state: unknown) => void,
  })
  if (tree === null) {
    instance.reset()
    return { ok: false, failure: "budget" }
  }
  try {
    if (tree.rootNode.hasError) return { ok: false, failure: "syntax" }
    return { ok: true, value: use(tree.rootNode) }
  } finally {
    tree.delete()
  }
}
