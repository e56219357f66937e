import { Effect } from "effect"
import { access, readFile } from "node:fs/promises"
import { resolve } from "node:path"
import type { FormatOutcome, Formatters } from "../format/format.ts"
import { formatDiagnostic, shownDiagnostics, type DiagnosticsOutcome } from "../lsp/diagnostic.ts"
import type { Lsp } from "../lsp/lsp.ts"
import type { FileRecord, Tool, ToolContext, ToolPlan, ToolResult } from "./tool.ts"

/** What runs after a file-changing tool applies: the formatters, then the language servers' diagnostics. */
export interface AfterEdit {
  readonly formatters?: Formatters["Service"]
  readonly lsp?: Lsp["Service"]
  /** Milliseconds to wait for a file's diagnostics (`tools.diagnostics.timeout`, default 3000). */
  readonly timeout: number
  /** Warnings shown per file after its errors (`tools.diagnostics.warnings`, default 10). */
  readonly warnings: number
}

/** At most this many changed files of one call are formatted and diagnosed. */
const MAX_FILES = 20

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )

/** The formatted outcome of a file, with its path. */
export type FileFormat = FormatOutcome & { readonly path: string }

const followUp = (result: ToolResult, paths: ReadonlyArray<string>, ctx: ToolContext, after: AfterEdit) =>
  Effect.gen(function* () {
    const targets: Array<string> = []
    for (const path of paths.slice(0, MAX_FILES))
      if (yield* Effect.promise(() => exists(resolve(ctx.directory, path)))) targets.push(path)
    if (targets.length === 0) return result
    const formats: Array<FileFormat> = []
    let files = result.metadata?.["files"] as ReadonlyArray<FileRecord> | undefined
    if (after.formatters) {
      for (const path of targets) {
        const outcome = yield* after.formatters.format(ctx.directory, resolve(ctx.directory, path))
        if (outcome === undefined) continue
        formats.push({ path, ...outcome })
        // What a revert compares against is what is on disk now, the formatter's output.
        if (outcome.changed && files && ctx.images) {
          const text = yield* Effect.promise(() => readFile(resolve(ctx.directory, path), "utf8"))
          const ref = yield* Effect.promise(() => ctx.images!.put(text))
          files = files.map((f) => (f.path === path ? { ...f, after: ref } : f))
        }
      }
    }
    const diagnostics: Array<DiagnosticsOutcome> = []
    if (after.lsp) {
      const lsp = after.lsp
      const outcomes = yield* Effect.forEach(
        targets,
        (path) => lsp.diagnose(ctx.directory, resolve(ctx.directory, path), after.timeout),
        { concurrency: "unbounded" },
      )
      for (const outcome of outcomes) if (outcome) diagnostics.push(outcome)
    }
    const lines: Array<string> = []
    for (const f of formats) {
      if (f.error !== undefined)
        lines.push(`The formatter ${f.formatter} failed on ${f.path} (the edit is kept): ${f.error}`)
      else if (f.changed)
        lines.push(
          `${f.path} was reformatted by ${f.formatter}; read it again before editing it (the text on disk changed).`,
        )
    }
    const stored: Array<DiagnosticsOutcome> = []
    for (const outcome of diagnostics) {
      const { shown, hiddenWarnings } = shownDiagnostics(outcome, after.warnings)
      stored.push({ ...outcome, diagnostics: shown })
      if (outcome.note) lines.push(`Diagnostics of ${outcome.path}: ${outcome.note}.`)
      if (shown.length === 0) continue
      const errors = shown.filter((d) => d.severity === "error").length
      lines.push(
        `${errors > 0 ? "Errors" : "Warnings"} reported by ${outcome.server} in ${outcome.path}${errors > 0 ? ", please fix" : ""}:`,
        `<diagnostics file="${outcome.path}">`,
        ...shown.map(formatDiagnostic),
        ...(hiddenWarnings > 0 ? [`... and ${hiddenWarnings} more warnings`] : []),
        `</diagnostics>`,
      )
    }
    return {
      ...result,
      output: lines.length > 0 ? `${result.output}\n\n${lines.join("\n")}` : result.output,
      metadata: {
        ...result.metadata,
        ...(files ? { files } : {}),
        ...(formats.length > 0 ? { format: formats } : {}),
        ...(stored.length > 0 ? { diagnostics: stored } : {}),
      },
    } satisfies ToolResult
  })

/**
 * `tool` (edit, write or patch) with formatting and diagnostics after it applies: the paths its plan
 * names are formatted, then diagnosed, and what came of both is appended to the output the model sees
 * and stored on the item (`metadata.format`, `metadata.diagnostics`). Neither ever fails the call.
 */
export const withAfterEdit = <I>(tool: Tool<I>, after: AfterEdit): Tool<I> => {
  if (!tool.plan || (!after.lsp && !after.formatters)) return tool
  const inner = tool.plan
  const plan = (input: I, ctx: ToolContext) =>
    Effect.map(inner(input, ctx), (planned): ToolPlan => ({
      ...planned,
      run: () => Effect.flatMap(planned.run(), (result) => followUp(result, planned.patterns, ctx, after)),
    }))
  return {
    ...tool,
    plan,
    execute: (input, ctx) => Effect.flatMap(plan(input, ctx), (p) => Effect.map(p.run(), (r) => r.output)),
  }
}
