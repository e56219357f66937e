import { Schema } from "effect"

/** One problem a language server reported in a file; `line` and `column` count from 1. */
export const FileDiagnostic = Schema.Struct({
  /** Relative to the session directory. */
  path: Schema.String,
  line: Schema.Int,
  column: Schema.Int,
  severity: Schema.Literals(["error", "warning", "information", "hint"]),
  message: Schema.String,
  source: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
})
export type FileDiagnostic = typeof FileDiagnostic.Type

/** What the diagnostics of one edited file came to: the problems, or why there are none to show. */
export interface DiagnosticsOutcome {
  readonly path: string
  /** The server that answered (`typescript`), when one serves the file. */
  readonly server?: string
  readonly diagnostics: ReadonlyArray<FileDiagnostic>
  /** Why the list may be incomplete: the server did not answer in time, crashed, or is restarting. */
  readonly note?: string
}

const SEVERITIES = ["error", "warning", "information", "hint"] as const

/** A protocol `Diagnostic` (0-based range, numeric severity) as a {@link FileDiagnostic}. */
export const fromProtocol = (
  path: string,
  d: {
    readonly range: { readonly start: { readonly line: number; readonly character: number } }
    readonly severity?: number
    readonly message: string
    readonly source?: string
    readonly code?: number | string
  },
): FileDiagnostic => ({
  path,
  line: d.range.start.line + 1,
  column: d.range.start.character + 1,
  severity: SEVERITIES[(d.severity ?? 1) - 1] ?? "error",
  message: d.message,
  ...(d.source !== undefined ? { source: d.source } : {}),
  ...(d.code !== undefined ? { code: String(d.code) } : {}),
})

/** `a.ts:3:7 error TS2322: Type 'string' is not assignable to type 'number'.` */
export const formatDiagnostic = (d: FileDiagnostic): string =>
  `${d.path}:${d.line}:${d.column} ${d.severity}${d.code !== undefined ? ` ${d.source === "typescript" ? "TS" : ""}${d.code}` : ""}: ${d.message.split("\n")[0]}`

/**
 * The errors, then the first `warnings` warnings, of an outcome: what the model is shown after an edit.
 * Hints and information are left out; a count says how many warnings were cut.
 */
export const shownDiagnostics = (
  outcome: DiagnosticsOutcome,
  warnings: number,
): { readonly shown: ReadonlyArray<FileDiagnostic>; readonly hiddenWarnings: number } => {
  const errors = outcome.diagnostics.filter((d) => d.severity === "error")
  const allWarnings = outcome.diagnostics.filter((d) => d.severity === "warning")
  return {
    shown: [...errors, ...allWarnings.slice(0, warnings)],
    hiddenWarnings: Math.max(0, allWarnings.length - warnings),
  }
}
