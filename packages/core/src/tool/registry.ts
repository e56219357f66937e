import { Effect, Exit, Schema, SchemaIssue } from "effect"
import { bash, planCommand } from "./bash.ts"
import { edit } from "./edit.ts"
import { glob } from "./glob.ts"
import { grep } from "./grep.ts"
import { list } from "./list.ts"
import { patch } from "./patch.ts"
import type { QuestionsShape } from "../question/question.ts"
import type { TodosShape } from "../todo/todo.ts"
import { question } from "./question.ts"
import { todoread, todowrite } from "./todo.ts"
import { webfetch } from "./webfetch.ts"
import type { WebfetchConfig } from "../config/webfetch.ts"
import { read } from "./read.ts"
import { write } from "./write.ts"
import { withAfterEdit, type AfterEdit } from "./after-edit.ts"
import { lspTool } from "./lsp.ts"
import {
  ToolError,
  type ForbiddenAddressError,
  type PathOutsideDirectoryError,
  type PermissionKey,
  type Tool,
  type ToolContext,
  type ToolPlan,
} from "./tool.ts"

/**
 * The built-in tools, in the order they are offered to the model. Every call goes through the permission
 * layer (read tools allowed, edits and bash asked, by default); `tools.bash: false` in the config removes
 * bash altogether.
 */
export const builtinTools = (
  options: {
    readonly bash?: boolean
    readonly webfetch?: WebfetchConfig
    /** The session services behind `todowrite`/`todoread` and `question`: without them those tools are absent. */
    readonly todos?: TodosShape
    readonly questions?: QuestionsShape
    /** Formatters and language servers run after edit, write and patch; with a server, the `lsp` tool. */
    readonly afterEdit?: AfterEdit
  } = {},
): ReadonlyArray<Tool> => [
  read,
  list,
  grep,
  glob,
  ...(options.afterEdit
    ? [edit, write, patch].map((tool: Tool) => withAfterEdit(tool, options.afterEdit!))
    : [edit, write, patch]),
  ...(options.bash === false ? [] : [bash]),
  webfetch(options.webfetch),
  ...(options.todos ? [todowrite(options.todos), todoread(options.todos)] : []),
  ...(options.questions ? [question(options.questions)] : []),
  ...(options.afterEdit?.lsp ? [lspTool(options.afterEdit.lsp, options.afterEdit.timeout)] : []),
]

/** The permission rule a tool's calls fall under: read tools `read`, file changes `edit`, `bash`, `skill`, `lsp`. */
export const permissionKey = (tool: string): PermissionKey =>
  tool === "lsp"
    ? "lsp"
    : tool === "bash"
      ? "bash"
      : tool === "skill"
        ? "skill"
        : tool === "edit" || tool === "write" || tool === "patch"
          ? "edit"
          : "read"

/** A plain JSON Schema object (draft 2020-12). */
export type JsonSchemaObject = { readonly [key: string]: unknown }

/** A tool as sent to the model; structurally a `ModelTool` (domain/model-request.ts). */
export interface ModelToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchemaObject & {
    readonly type: "object"
    readonly properties: { readonly [key: string]: unknown }
    readonly required: ReadonlyArray<string>
  }
}

/** Keywords whose values are data, not subschemas: never searched for `$ref`. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"])
const DEFS_PREFIX = "#/$defs/"

/**
 * Replaces `{"$ref": "#/$defs/Name", ...siblings}` by the definition merged with its siblings. Recursive
 * references (a definition reaching itself) cannot be inlined: they are kept and reported in `needed`, and
 * the caller attaches those definitions as `$defs` to the root.
 */
const inline = (
  node: unknown,
  definitions: Readonly<Record<string, unknown>>,
  expanding: ReadonlySet<string>,
  needed: Set<string>,
): unknown => {
  if (Array.isArray(node)) return node.map((item) => inline(item, definitions, expanding, needed))
  if (typeof node !== "object" || node === null) return node
  const record = node as Record<string, unknown>
  const ref = record["$ref"]
  if (typeof ref === "string" && ref.startsWith(DEFS_PREFIX)) {
    const name = decodeURIComponent(ref.slice(DEFS_PREFIX.length)).replace(/~1/g, "/").replace(/~0/g, "~")
    const definition = definitions[name]
    if (definition !== undefined) {
      if (expanding.has(name)) {
        needed.add(name)
        return record
      }
      const { $ref: _, ...siblings } = record
      const expanded = inline(definition, definitions, new Set([...expanding, name]), needed)
      const rest = inline(siblings, definitions, expanding, needed) as Record<string, unknown>
      return { ...(expanded as Record<string, unknown>), ...rest }
    }
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(record)) {
    out[key] = DATA_KEYWORDS.has(key) ? value : inline(value, definitions, expanding, needed)
  }
  return out
}

/**
 * The JSON Schema of a tool's input as one self-contained object schema: `Schema.toJsonSchemaDocument`
 * returns the root schema and its definitions separately (the root is just a `$ref` when the input schema
 * has an identifier), so definitions are inlined. Throws when the input is not an object schema — that
 * is a programming error in the tool, not something the model can fix.
 */
export const inputJsonSchema = (tool: Tool): ModelToolDefinition["parameters"] => {
  const document = Schema.toJsonSchemaDocument(tool.input)
  const needed = new Set<string>()
  const schema = inline(document.schema, document.definitions, new Set(), needed) as Record<string, unknown>
  if (schema["type"] !== "object") {
    throw new Error(`tool "${tool.name}": input schema must describe an object, got ${JSON.stringify(schema)}`)
  }
  const result: Record<string, unknown> = {
    ...schema,
    properties: schema["properties"] ?? {},
    required: schema["required"] ?? [],
  }
  if (needed.size > 0) {
    // Recursive definitions: keep them (themselves inlined as far as possible) under $defs.
    const defs: Record<string, unknown> = {}
    for (const name of needed)
      defs[name] = inline(document.definitions[name], document.definitions, new Set([name]), needed)
    result["$defs"] = defs
  }
  return result as ModelToolDefinition["parameters"]
}

/** The description of a tool as sent to the model. */
export const toModelTool = (tool: Tool): ModelToolDefinition => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.parameters
    ? ({ properties: {}, required: [], ...tool.parameters } as ModelToolDefinition["parameters"])
    : inputJsonSchema(tool),
})

/**
 * Tools from outside the host (MCP servers), asked for before every model request since they come and go.
 * `find` resolves one by name for a call (a call resumed after a restart may come before any listing).
 */
export interface ToolSource {
  readonly tools: () => Effect.Effect<ReadonlyArray<Tool>>
  readonly find: (name: string) => Effect.Effect<Tool | undefined>
}

const formatPath = (path: ReadonlyArray<unknown>): string => {
  let out = ""
  for (const segment of path) {
    const key = typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
    if (typeof key === "number") out += `[${key}]`
    else out += out === "" ? String(key) : `.${String(key)}`
  }
  return out
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** "path: Missing key; limit: Expected a value between 1 and 2000" — one entry per failing field. */
const describeIssue = (issue: SchemaIssue.Issue): string =>
  formatter(issue)
    .issues.map((i) => `${i.path === undefined || i.path.length === 0 ? "input" : formatPath(i.path)}: ${i.message}`)
    .join("; ")

/** Without top-level `null` members: models often send `null` for an optional parameter they do not use. */
const withoutNulls = (input: unknown): unknown | undefined => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined
  const entries = Object.entries(input)
  if (!entries.some(([, v]) => v === null)) return undefined
  return Object.fromEntries(entries.filter(([, v]) => v !== null))
}

const jsonCodecs = new WeakMap<Tool, Schema.Codec<unknown, unknown>>()
/** The codec matching the advertised JSON Schema (`toJsonSchemaDocument` describes `toCodecJson`'s encoded side). */
const jsonCodec = (tool: Tool): Schema.Codec<unknown, unknown> => {
  let codec = jsonCodecs.get(tool)
  if (codec === undefined) {
    codec = Schema.toCodecJson(tool.input) as unknown as Schema.Codec<unknown, unknown>
    jsonCodecs.set(tool, codec)
  }
  return codec
}

/**
 * Decodes a model-supplied tool input and plans the call (see `ToolPlan`): file-changing tools validate
 * everything first; other tools get a plan whose `run` is their `execute`, with the path as the pattern
 * the permission rules match (for bash: each command of the line).
 */
export const planTool = (
  tool: Tool,
  rawInput: unknown,
  ctx: ToolContext,
): Effect.Effect<ToolPlan, ToolError | PathOutsideDirectoryError> =>
  Effect.gen(function* () {
    const input = yield* decodeInput(tool, rawInput)
    if (tool.plan) return yield* tool.plan(input, ctx)
    const key = permissionKey(tool.name)
    const run = () => Effect.map(tool.execute(input, ctx), (output) => ({ output }))
    // A command line is never one pattern: the rules see each of its commands.
    if (key === "bash") return yield* planCommand(String((input as { command?: unknown }).command ?? ""), run)
    const subject = String((input as { path?: unknown }).path ?? ".")
    return {
      permission: key,
      patterns: [subject],
      title: `${tool.name} ${subject.length > 200 ? `${subject.slice(0, 199)}…` : subject}`,
      run,
    } satisfies ToolPlan
  }).pipe(Effect.catchDefect((defect) => Effect.fail(unexpected(tool, defect))))

const unexpected = (tool: Tool, defect: unknown) =>
  new ToolError({
    tool: tool.name,
    message: `tool "${tool.name}" failed unexpectedly: ${defect instanceof Error ? defect.message : String(defect)}`,
  })

/**
 * Decodes a model-supplied tool input and runs the tool. A decode failure is a ToolError whose message
 * names every offending field, so the model can correct its call. A JSON string input is parsed first.
 * If decoding fails and the input has `null` members, it is retried once without them. A defect thrown by
 * a tool is reported as a ToolError instead of crashing the session.
 */
export const runTool = (
  tool: Tool,
  rawInput: unknown,
  ctx: ToolContext,
): Effect.Effect<string, ToolError | PathOutsideDirectoryError | ForbiddenAddressError> =>
  Effect.flatMap(decodeInput(tool, rawInput), (input) => tool.execute(input, ctx)).pipe(
    Effect.catchDefect((defect) => Effect.fail(unexpected(tool, defect))),
  )

/**
 * A model-supplied input decoded against the tool's schema. A decode failure is a ToolError whose message
 * names every offending field, so the model can correct its call. A JSON string input is parsed first.
 * If decoding fails and the input has `null` members, it is retried once without them.
 */
const decodeInput = (tool: Tool, rawInput: unknown): Effect.Effect<unknown, ToolError> =>
  Effect.gen(function* () {
    let input = rawInput
    if (typeof input === "string") {
      const text = input
      input = yield* Effect.try({
        try: () => (text.trim() === "" ? {} : (JSON.parse(text) as unknown)),
        catch: () =>
          new ToolError({ tool: tool.name, message: `invalid input for tool "${tool.name}": not valid JSON` }),
      })
    }
    if (input === undefined || input === null) input = {}

    const decode = Schema.decodeUnknownExit(jsonCodec(tool))
    let decoded = decode(input, { errors: "all" })
    if (Exit.isFailure(decoded)) {
      const retry = withoutNulls(input)
      if (retry !== undefined) {
        const second = decode(retry, { errors: "all" })
        if (Exit.isSuccess(second)) decoded = second
      }
    }
    if (Exit.isFailure(decoded)) {
      const error = decoded.cause.reasons.find((r) => r._tag === "Fail")
      const detail =
        error !== undefined && error._tag === "Fail" && Schema.isSchemaError(error.error)
          ? describeIssue(error.error.issue)
          : "could not be decoded"
      return yield* new ToolError({ tool: tool.name, message: `invalid input for tool "${tool.name}": ${detail}` })
    }
    return decoded.value
  })
