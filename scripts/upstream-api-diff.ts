/**
 * `bun run api-diff` writes `docs/upstream/api.md`: this host's HTTP API set against upstream OpenCode's
 * v2 API, operation by operation. `--check` writes nothing and exits 1 when the committed page differs from
 * what the two contracts produce now (so a test or CI step can catch a stale page).
 *
 * The two contracts:
 * - upstream's published SDK (`upstream-sdk`, i.e. `@opencode-ai/sdk` as pinned in packages/server):
 *   `dist/v2/gen/sdk.gen.d.ts` gives every operation under `client.v2` (its class path, summary and
 *   parameters), `sdk.gen.js` the HTTP method and where each parameter goes, `types.gen.d.ts` the path
 *   (the `url` of each `V2<Op>Data` type) and the statuses;
 * - this repository's OpenAPI document, `packages/sdk/openapi.json`.
 *
 * An upstream operation is "identical" here when the same method and path (parameter names aside) exist in
 * the document, else "missing here" with the reason from `MISSING_REASONS`. Every operation of the document
 * upstream lacks is an addition, listed with its request body, answer, error tags and the durable event it
 * commits: the operation's `x-opencode-event` extension (a type or a list of types), or an
 * `x-opencode-event: <type>` line in its description.
 *
 * Usage: `bun run scripts/upstream-api-diff.ts [--check] [--openapi FILE] [--out FILE]`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..")

/**
 * Why an upstream v2 operation has no counterpart here, by class path prefix under `v2.` (the longest
 * matching prefix wins). Hand-maintained: add a line when the host decides not to offer an operation.
 */
const MISSING_REASONS: ReadonlyArray<readonly [prefix: string, reason: string]> = [
  ["pty", "not in this host: no pseudo-terminals; shell commands run through the permission-checked `bash` tool"],
  [
    "integration",
    "not in this host: providers are configured in `opencode.json` and keys come from the environment; there is no connect flow",
  ],
  ["credential", "not in this host: no stored credentials; provider keys come from the environment or the config"],
  ["reference", "not in this host: no reference index"],
  ["projectCopy", "not in this host: no project copies; a session's location is one directory"],
  ["session.revert", "not in this host yet: revert needs the before-images of tool file changes (planned)"],
  ["permission.saved", "not in this host: `always` grants belong to the session; nothing is saved across sessions"],
  ["session.permission.create", "not in this host: permission requests come only from tool calls"],
]
const NO_REASON = "no reason recorded"

// ---------------------------------------------------------------------------------------------------
// Upstream: the published SDK.

interface UpstreamParameter {
  readonly name: string
  readonly optional: boolean
  /** `path`, `query`, `body` or `header`. */
  readonly in: string
}

interface UpstreamOperation {
  /** `v2.session.prompt`. */
  readonly classPath: string
  /** `V2SessionPrompt`: the prefix of its `Data`, `Errors` and `Responses` types. */
  readonly typeName: string
  readonly method: string
  readonly path: string
  readonly summary: string
  readonly sse: boolean
  readonly parameters: ReadonlyArray<UpstreamParameter>
  readonly successStatuses: ReadonlyArray<string>
  readonly errorStatuses: ReadonlyArray<string>
}

const upstreamDirectory = () => {
  const entry = Bun.resolveSync("upstream-sdk/v2", join(ROOT, "packages", "server"))
  return dirname(entry)
}

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.Unknown)

const classes = (source: ts.SourceFile) => {
  const out = new Map<string, ts.ClassDeclaration>()
  for (const statement of source.statements) {
    if (ts.isClassDeclaration(statement) && statement.name) out.set(statement.name.text, statement)
  }
  return out
}

const memberName = (member: ts.ClassElement) =>
  member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)) ? member.name.text : undefined

const isPrivate = (member: ts.ClassElement) =>
  ts.getCombinedModifierFlags(member as ts.Declaration) & ts.ModifierFlags.Private ||
  (member.name !== undefined && ts.isPrivateIdentifier(member.name))

/** The first line of a declaration's JSDoc. */
const summaryOf = (node: ts.Node) => {
  const doc = ts.getJSDocCommentsAndTags(node).find(ts.isJSDoc)
  const comment = typeof doc?.comment === "string" ? doc.comment : ts.getTextOfJSDocComment(doc?.comment)
  return (comment ?? "").split("\n")[0]!.trim()
}

/** Each type alias of `types.gen.d.ts` by name, as its type node. */
const typeAliases = (source: ts.SourceFile) => {
  const out = new Map<string, ts.TypeNode>()
  for (const statement of source.statements) {
    if (ts.isTypeAliasDeclaration(statement)) out.set(statement.name.text, statement.type)
  }
  return out
}

const literalMembers = (node: ts.TypeNode | undefined) =>
  node && ts.isTypeLiteralNode(node) ? node.members.filter(ts.isPropertySignature) : []

const propertyKey = (member: ts.PropertySignature) =>
  ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) || ts.isNumericLiteral(member.name)
    ? member.name.text
    : member.name.getText()

/** What `sdk.gen.js` says of one method: HTTP method, whether it streams, and where each parameter goes. */
const runtimeOf = (method: ts.MethodDeclaration) => {
  let verb: string | undefined
  let sse = false
  const placement = new Map<string, string>()
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = node.expression.name.text
      const target = node.expression.expression
      const first = node.arguments[0]
      const hasUrl =
        first !== undefined &&
        ts.isObjectLiteralExpression(first) &&
        first.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === "url")
      if (hasUrl) {
        verb = name.toUpperCase()
        sse = ts.isPropertyAccessExpression(target) && target.name.text === "sse"
      }
    }
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "buildClientParams") {
      const fields = node.arguments[1]
      const visitArgs = (n: ts.Node) => {
        if (ts.isObjectLiteralExpression(n)) {
          const get = (key: string) => {
            const property = n.properties.find(
              (p): p is ts.PropertyAssignment =>
                ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === key,
            )
            return property && ts.isStringLiteral(property.initializer) ? property.initializer.text : undefined
          }
          const key = get("key")
          const where = get("in") ?? get("map")
          if (key !== undefined && where !== undefined) placement.set(key, where)
        }
        ts.forEachChild(n, visitArgs)
      }
      if (fields) visitArgs(fields)
    }
    ts.forEachChild(node, visit)
  }
  visit(method)
  return { verb, sse, placement }
}

/** Every operation under upstream's `client.v2`, in the order the SDK declares them. */
export const upstreamOperations = (): { version: string; operations: Array<UpstreamOperation> } => {
  const dir = upstreamDirectory()
  const version = (JSON.parse(readFileSync(join(dir, "..", "..", "package.json"), "utf8")) as { version: string })
    .version
  const declarations = classes(parse(join(dir, "gen", "sdk.gen.d.ts")))
  const runtime = classes(parse(join(dir, "gen", "sdk.gen.js")))
  const types = typeAliases(parse(join(dir, "gen", "types.gen.d.ts")))
  const operations: Array<UpstreamOperation> = []

  const walk = (className: string, prefix: string) => {
    const declaration = declarations.get(className)
    if (!declaration) throw new Error(`upstream SDK has no class ${className}`)
    for (const member of declaration.members) {
      const name = memberName(member)
      if (name === undefined || isPrivate(member) || name === "constructor") continue
      if (ts.isGetAccessorDeclaration(member) && member.type) {
        walk(member.type.getText(), `${prefix}.${name}`)
        continue
      }
      if (!ts.isMethodDeclaration(member)) continue
      const returned = member.type?.getText() ?? ""
      const typeName = /\b(V2\w+)Responses\b/.exec(returned)?.[1]
      if (!typeName) throw new Error(`${prefix}.${name}: no V2...Responses in its return type ${returned}`)
      const data = literalMembers(types.get(`${typeName}Data`))
      const urlMember = data.find((m) => propertyKey(m) === "url")?.type
      const path =
        urlMember && ts.isLiteralTypeNode(urlMember) && ts.isStringLiteral(urlMember.literal)
          ? urlMember.literal.text
          : undefined
      if (!path) throw new Error(`${typeName}Data has no url`)
      const js = runtime
        .get(className)
        ?.members.find((m): m is ts.MethodDeclaration => ts.isMethodDeclaration(m) && memberName(m) === name)
      if (!js) throw new Error(`sdk.gen.js has no ${className}.${name}`)
      const { verb, sse, placement } = runtimeOf(js)
      if (!verb) throw new Error(`sdk.gen.js: no HTTP call in ${className}.${name}`)
      // The flat parameters of the method are all optional when their group is; the `Data` type says which
      // members of the path, query and body the route requires.
      const parameterType = member.parameters.find((p) => p.name.getText() === "parameters")?.type
      const parameters = literalMembers(parameterType).map((p) => {
        const key = propertyKey(p)
        const where = placement.get(key) ?? "query"
        const group = literalMembers(data.find((m) => propertyKey(m) === where)?.type)
        const declared = group.find((m) => propertyKey(m) === key)
        return { name: key, optional: (declared ?? p).questionToken !== undefined, in: where }
      })
      const statuses = (suffix: string) =>
        literalMembers(types.get(`${typeName}${suffix}`))
          .map(propertyKey)
          .sort()
      operations.push({
        classPath: `${prefix}.${name}`,
        typeName,
        method: verb,
        path,
        summary: summaryOf(member),
        sse,
        parameters,
        successStatuses: statuses("Responses"),
        errorStatuses: statuses("Errors"),
      })
    }
  }
  walk("V2", "v2")
  return { version, operations }
}

// ---------------------------------------------------------------------------------------------------
// Here: the OpenAPI document.

type Schema = {
  $ref?: string
  type?: string | Array<string>
  properties?: Record<string, Schema>
  required?: Array<string>
  items?: Schema
  anyOf?: Array<Schema>
  oneOf?: Array<Schema>
  allOf?: Array<Schema>
  enum?: Array<unknown>
  const?: unknown
  additionalProperties?: boolean | Schema
  description?: string
}
interface OpenApiResponse {
  description?: string
  content?: Record<string, { schema?: Schema }>
}
interface OpenApiOperation {
  operationId?: string
  summary?: string
  description?: string
  parameters?: Array<{ name: string; in: string; required?: boolean }>
  requestBody?: { content?: Record<string, { schema?: Schema }> }
  responses?: Record<string, OpenApiResponse>
  "x-opencode-event"?: string | Array<string>
}
interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>
  components?: { schemas?: Record<string, Schema> }
}

interface LocalOperation {
  readonly operationId: string
  readonly method: string
  readonly path: string
  readonly operation: OpenApiOperation
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

const localOperations = (document: OpenApiDocument): Array<LocalOperation> =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({
        operationId: operation.operationId ?? `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operation,
      })),
  )

/** A path with its parameter names (and upstream's `*` tail) erased, so `{permissionID}` matches `{requestID}`. */
const pathShape = (path: string) => path.replace(/\{[^}]+\}/g, "{}").replace(/\/\*$/, "/{}")

const parameterNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)

const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "")

/** A one-line TypeScript-like rendering of a schema, `depth` levels of objects deep. */
const summarize = (schema: Schema | undefined, depth = 2): string => {
  if (schema === undefined) return "unknown"
  if (schema.$ref) return refName(schema.$ref)
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ")
  const union = schema.anyOf ?? schema.oneOf
  if (union) return union.map((member) => summarize(member, depth)).join(" | ")
  if (schema.allOf) return schema.allOf.map((member) => summarize(member, depth)).join(" & ")
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type
  if (type === "array") return `Array<${summarize(schema.items, depth)}>`
  if (type === "object" || schema.properties) {
    const entries = Object.entries(schema.properties ?? {})
    if (entries.length === 0) {
      const values = typeof schema.additionalProperties === "object" ? summarize(schema.additionalProperties) : ""
      return values ? `Record<string, ${values}>` : "object"
    }
    if (depth === 0) return "{ … }"
    const required = new Set(schema.required ?? [])
    const shown = entries
      .slice(0, 10)
      .map(([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${summarize(value, depth - 1)}`)
    return `{ ${shown.join(", ")}${entries.length > 10 ? ", …" : ""} }`
  }
  return type ?? "unknown"
}

const jsonSchemaOf = (content: Record<string, { schema?: Schema }> | undefined) => {
  if (!content) return undefined
  const [mime, entry] = Object.entries(content)[0] ?? []
  if (mime === undefined) return undefined
  return { mime, schema: entry?.schema }
}

/** The durable event types an operation commits, from `x-opencode-event` or its description. */
export const committedEvents = (operation: OpenApiOperation): Array<string> => {
  const extension = operation["x-opencode-event"]
  if (extension !== undefined) return Array.isArray(extension) ? [...extension] : [extension]
  const text = `${operation.description ?? ""}\n${operation.summary ?? ""}`
  return [...text.matchAll(/x-opencode-event:\s*`?([\w.-]+)`?/g)].map((match) => match[1]!)
}

/** The error statuses of an operation with the tags its document names (`404 SessionNotFoundError`). */
const errorsOf = (operation: OpenApiOperation) =>
  Object.entries(operation.responses ?? {})
    .filter(([status]) => !/^2\d\d$/.test(status))
    .map(([status, response]) => {
      const schema = jsonSchemaOf(response.content)?.schema
      const tags = schema ? summarize(schema, 0) : (response.description ?? "")
      return `${status} ${tags}`.trim()
    })

const successOf = (operation: OpenApiOperation) =>
  Object.entries(operation.responses ?? {})
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([status, response]) => {
      const body = jsonSchemaOf(response.content)
      if (!body) return `${status} (no body)`
      const mime = body.mime === "application/json" ? "" : ` (${body.mime})`
      return `${status} \`${summarize(body.schema)}\`${mime}`
    })

// ---------------------------------------------------------------------------------------------------
// The page.

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ")

const reasonFor = (classPath: string) => {
  const path = classPath.replace(/^v2\./, "")
  const matches = MISSING_REASONS.filter(([prefix]) => path === prefix || path.startsWith(`${prefix}.`))
  const best = matches.sort((a, b) => b[0].length - a[0].length)[0]
  return best?.[1] ?? NO_REASON
}

const parametersText = (parameters: ReadonlyArray<UpstreamParameter>) => {
  const groups = new Map<string, Array<string>>()
  for (const p of parameters) groups.set(p.in, [...(groups.get(p.in) ?? []), `${p.name}${p.optional ? "?" : ""}`])
  return [...groups].map(([where, names]) => `${where}: ${names.join(", ")}`).join("; ") || "none"
}

export const renderPage = (openapiPath: string): string => {
  const { version, operations } = upstreamOperations()
  const document = JSON.parse(readFileSync(openapiPath, "utf8")) as OpenApiDocument
  const local = localOperations(document)
  const byShape = new Map(local.map((op) => [`${op.method} ${pathShape(op.path)}`, op]))
  const matched = new Set<LocalOperation>()

  const rows = operations.map((op) => {
    const here = byShape.get(`${op.method} ${pathShape(op.path)}`)
    if (here) matched.add(here)
    let status: string
    if (here) {
      const names = parameterNames(here.path)
      const renamed = names.join(",") !== parameterNames(op.path).join(",")
      status = `identical (\`${here.operationId}\`${renamed ? `; path parameters here: ${names.join(", ")}` : ""})`
    } else {
      status = `missing here: ${reasonFor(op.classPath)}`
    }
    const answer = `${op.successStatuses.join(", ")}${op.sse ? " (SSE)" : ""}`
    return {
      op,
      here,
      line: [
        `\`${op.classPath}\``,
        `${op.method} \`${op.path}\``,
        op.summary,
        parametersText(op.parameters),
        answer,
        status,
      ],
    }
  })
  const additions = local.filter((op) => !matched.has(op))
  const identical = rows.filter((row) => row.here).length
  const openapi = relative(ROOT, openapiPath)

  const out: Array<string> = []
  out.push("# This host's HTTP API against upstream OpenCode v2", "")
  out.push(
    `Generated by \`bun run api-diff\` (\`scripts/upstream-api-diff.ts\`) from upstream's published SDK`,
    `\`@opencode-ai/sdk@${version}\` (\`dist/v2/gen/sdk.gen.d.ts\`, \`sdk.gen.js\`, \`types.gen.d.ts\`) and this`,
    `repository's \`${openapi}\`. Do not edit by hand: change the API or the reasons table in the script, then`,
    "regenerate; `bun run api-diff --check` fails while this page is stale.",
    "",
    "An upstream operation is *identical* when this host serves the same method and path (path parameter names",
    "aside); its shapes are checked separately, body by body, by",
    "`packages/server/test/upstream-client-conformance.test.ts`. Operations this host has and upstream lacks",
    "are *additions*, listed with the durable event they commit (`x-opencode-event` on the operation).",
    "The reason an operation is missing comes from `MISSING_REASONS` in the script.",
    "",
    `Upstream v2 operations: ${operations.length} (${identical} identical here, ${operations.length - identical} missing here).`,
    `Additions here: ${additions.length}.`,
    "",
    "## Upstream v2 operations",
    "",
    "| operation | method and path | summary | parameters | 2xx | here |",
    "|---|---|---|---|---|---|",
  )
  for (const row of rows) out.push(`| ${row.line.map(cell).join(" | ")} |`)
  out.push("", "## Additions here", "")
  if (additions.length === 0) out.push("None.")
  for (const op of additions) {
    const body = jsonSchemaOf(op.operation.requestBody?.content)
    const events = committedEvents(op.operation)
    const summary = op.operation.summary ?? op.operation.description?.split("\n")[0]
    out.push(`### \`${op.operationId}\`: ${op.method} \`${op.path}\``, "")
    if (summary) out.push(summary, "")
    out.push(
      `- request body: ${body ? `\`${cell(summarize(body.schema))}\`${body.mime === "application/json" ? "" : ` (${body.mime})`}` : "none"}`,
      `- response: ${successOf(op.operation).map(cell).join("; ") || "none declared"}`,
      `- errors: ${errorsOf(op.operation).map(cell).join(", ") || "none declared"}`,
      `- commits: ${
        events.length > 0
          ? events.map((type) => `\`${type}\``).join(", ")
          : op.operation["x-opencode-event"] !== undefined
            ? "nothing (a read)"
            : "not annotated (`x-opencode-event`)"
      }`,
      "",
    )
  }
  return `${out.join("\n").trimEnd()}\n`
}

const main = (args: ReadonlyArray<string>) => {
  const option = (name: string, fallback: string) => {
    const index = args.indexOf(name)
    return index === -1 ? fallback : resolve(process.cwd(), args[index + 1] ?? "")
  }
  const openapiPath = option("--openapi", join(ROOT, "packages", "sdk", "openapi.json"))
  const outPath = option("--out", join(ROOT, "docs", "upstream", "api.md"))
  const page = renderPage(openapiPath)
  const shown = relative(ROOT, outPath)
  if (args.includes("--check")) {
    const committed = existsSync(outPath) ? readFileSync(outPath, "utf8") : undefined
    if (committed === page) {
      console.log(`${shown} is up to date`)
      return 0
    }
    console.error(committed === undefined ? `${shown} is missing.` : `${shown} is stale.`)
    console.error("Run `bun run api-diff` from the repository root and commit the result.")
    return 1
  }
  writeFileSync(outPath, page)
  console.log(`wrote ${shown}`)
  return 0
}

if (import.meta.main) process.exit(main(process.argv.slice(2)))
