import { Effect, Schema } from "effect"
import { fileURLToPath, pathToFileURL } from "node:url"
import { isAbsolute, relative, resolve } from "node:path"
import { formatDiagnostic } from "../lsp/diagnostic.ts"
import type { Lsp } from "../lsp/lsp.ts"
import { displayPath, resolveInsideWithRoot } from "./path.ts"
import { ToolError, type Tool } from "./tool.ts"

export const LspInput = Schema.Struct({
  operation: Schema.Literals(["diagnostics", "hover", "definition", "references", "documentSymbol", "workspaceSymbol"]),
  path: Schema.optional(
    Schema.String.annotate({
      description: "File relative to the session directory (every operation but workspaceSymbol).",
    }),
  ),
  line: Schema.optional(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based line (hover, definition, references).",
    }),
  ),
  column: Schema.optional(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
      description: "1-based column (hover, definition, references).",
    }),
  ),
  query: Schema.optional(Schema.String.annotate({ description: "Symbol name to search for (workspaceSymbol)." })),
})
export type LspInput = typeof LspInput.Type

/** Entries listed at most per answer. */
const MAX_ENTRIES = 200

const SYMBOL_KINDS = [
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
]
const kind = (k: unknown) => (typeof k === "number" ? (SYMBOL_KINDS[k - 1] ?? `kind ${k}`) : "symbol")

interface Position {
  readonly line: number
  readonly character: number
}
interface Range {
  readonly start: Position
}

const hoverText = (contents: unknown): string => {
  if (typeof contents === "string") return contents
  if (Array.isArray(contents)) return contents.map(hoverText).join("\n\n")
  if (contents && typeof contents === "object" && "value" in contents) return String(contents.value)
  return ""
}

const capped = (lines: ReadonlyArray<string>, empty: string) =>
  lines.length === 0
    ? empty
    : lines.length > MAX_ENTRIES
      ? [...lines.slice(0, MAX_ENTRIES), `... and ${lines.length - MAX_ENTRIES} more`].join("\n")
      : lines.join("\n")

/**
 * The `lsp` tool: asks the language server of a file about it (diagnostics, hover, definition, references,
 * document symbols) or the servers of the session directory about a symbol name. Read-only; paths are
 * confined to the session directory.
 */
export const lspTool = (lsp: Lsp["Service"], timeout: number): Tool<LspInput> => {
  const fail = (message: string) => new ToolError({ tool: "lsp", message })
  const where = (directory: string, uri: string, range: Range) => {
    const file = uri.startsWith("file:") ? fileURLToPath(uri) : uri
    const rel = relative(directory, file)
    const shown = rel.startsWith("..") || isAbsolute(rel) ? file : rel
    return `${shown}:${range.start.line + 1}:${range.start.character + 1}`
  }
  return {
    name: "lsp",
    description:
      "Ask the project's language server: `diagnostics` of a file, `hover` (type and docs), `definition` and `references` of the symbol at line/column (1-based), `documentSymbol` (a file's outline), `workspaceSymbol` (find a symbol by name).",
    input: LspInput,
    execute: (input, ctx) =>
      Effect.gen(function* () {
        if (input.operation === "workspaceSymbol") {
          if (!input.query) return yield* fail("workspaceSymbol needs `query`")
          const symbols = yield* lsp
            .workspaceSymbol(ctx.directory, input.query)
            .pipe(Effect.mapError((e) => fail(e.message)))
          return capped(
            symbols.map((s) => {
              const symbol = s as { name: string; kind: number; location: { uri: string; range?: Range } }
              const range = symbol.location.range ?? { start: { line: 0, character: 0 } }
              return `${kind(symbol.kind)} ${symbol.name} ${where(ctx.directory, symbol.location.uri, range)}`
            }),
            `no symbol matches "${input.query}"`,
          )
        }
        if (!input.path) return yield* fail(`${input.operation} needs \`path\``)
        const { root, path } = yield* resolveInsideWithRoot("lsp", ctx.directory, input.path)
        const file = resolve(ctx.directory, displayPath(root, path))
        if (input.operation === "diagnostics") {
          const outcome = yield* lsp.diagnose(ctx.directory, file, timeout)
          if (outcome === undefined) return yield* fail(`no language server for "${input.path}"`)
          const lines = outcome.diagnostics.map(formatDiagnostic)
          return [capped(lines, `no diagnostics in ${outcome.path}`), ...(outcome.note ? [outcome.note] : [])].join(
            "\n",
          )
        }
        const textDocument = { uri: pathToFileURL(file).href }
        const ask = (method: string, params: unknown) =>
          lsp.request(ctx.directory, file, method, params).pipe(Effect.mapError((e) => fail(e.message)))
        if (input.operation === "documentSymbol") {
          const answer = (yield* ask("textDocument/documentSymbol", { textDocument })) as ReadonlyArray<any> | null
          const lines: Array<string> = []
          const walk = (symbols: ReadonlyArray<any>, depth: number) => {
            for (const s of symbols) {
              const range: Range = s.selectionRange ?? s.range ?? s.location?.range
              lines.push(
                `${"  ".repeat(depth)}${kind(s.kind)} ${s.name} ${range.start.line + 1}:${range.start.character + 1}`,
              )
              if (Array.isArray(s.children)) walk(s.children, depth + 1)
            }
          }
          walk(answer ?? [], 0)
          return capped(lines, "no symbols")
        }
        if (input.line === undefined || input.column === undefined)
          return yield* fail(`${input.operation} needs \`line\` and \`column\``)
        const position = { line: input.line - 1, character: input.column - 1 }
        if (input.operation === "hover") {
          const answer = (yield* ask("textDocument/hover", { textDocument, position })) as { contents?: unknown } | null
          const text = answer ? hoverText(answer.contents).trim() : ""
          return text === "" ? "nothing to show at this position" : text
        }
        const method = input.operation === "definition" ? "textDocument/definition" : "textDocument/references"
        const params =
          input.operation === "definition"
            ? { textDocument, position }
            : { textDocument, position, context: { includeDeclaration: true } }
        const answer = (yield* ask(method, params)) as unknown
        const locations = (Array.isArray(answer) ? answer : answer ? [answer] : []) as ReadonlyArray<any>
        return capped(
          locations.map((l) =>
            "targetUri" in l
              ? where(ctx.directory, l.targetUri, l.targetSelectionRange ?? l.targetRange)
              : where(ctx.directory, l.uri, l.range),
          ),
          `no ${input.operation === "definition" ? "definition" : "references"} found`,
        )
      }),
  }
}
