import { Schema } from "effect"

/** A language server named in `lsp`: the command line and the file extensions it serves (`".ts"`). */
export const LspServerConfig = Schema.Struct({
  command: Schema.Array(Schema.String).check(Schema.isMinLength(1)),
  /** Required for a server of your own; a built-in's name keeps its extensions when omitted. */
  extensions: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  /** Sent as `initializationOptions` with `initialize`. */
  initialization: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
})
export type LspServerConfig = typeof LspServerConfig.Type

/** Turns one server (built-in or not) off. */
export const LspDisabled = Schema.Struct({ disabled: Schema.Literal(true) })

/**
 * `lsp` in `opencode.json`: servers by name, overriding or adding to the built-ins (docs/lsp.md); `false`
 * turns every language server off.
 */
export const LspConfig = Schema.Union([
  Schema.Literal(false),
  Schema.Record(Schema.String, Schema.Union([LspDisabled, LspServerConfig])),
])
export type LspConfig = typeof LspConfig.Type

/**
 * A formatter named in `formatter`: `command` with `$FILE` standing for the file's absolute path, the
 * extensions it formats, extra `environment`; `disabled: true` turns a built-in off.
 */
export const FormatterEntry = Schema.Struct({
  disabled: Schema.optional(Schema.Boolean),
  command: Schema.optional(Schema.Array(Schema.String).check(Schema.isMinLength(1))),
  environment: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  extensions: Schema.optional(Schema.Array(Schema.String)),
})
export type FormatterEntry = typeof FormatterEntry.Type

/** `formatter` in `opencode.json`: formatters by name (docs/lsp.md); `false` turns every formatter off. */
export const FormatterConfig = Schema.Union([Schema.Literal(false), Schema.Record(Schema.String, FormatterEntry)])
export type FormatterConfig = typeof FormatterConfig.Type

/** `tools.diagnostics`: how long an edit waits for its file's diagnostics, and how many warnings it shows. */
export const DiagnosticsConfig = Schema.Struct({
  /** Milliseconds an edit waits for the server's diagnostics of its file. Default 3000. */
  timeout: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 60_000 }))),
  /** Warnings shown after the errors, per file. Default 10. */
  warnings: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))),
})
export type DiagnosticsConfig = typeof DiagnosticsConfig.Type
