/**
 * Upstream OpenCode's v2 wire contract as runtime validators: what "this host speaks upstream's protocol"
 * means, checked body by body.
 *
 * The contract is the published `@opencode-ai/sdk@1.19.3` (installed as the alias `upstream-sdk`), file
 * `dist/v2/gen/types.gen.d.ts`. Its TypeScript types are turned into one JSON Schema (`ts-json-schema-generator`,
 * every exported type a definition) and compiled with ajv. A v2 operation `session.list` (its path under
 * upstream's `client.v2`) answers with `V2SessionListResponses[<2xx status>]`.
 *
 * Rules, decided here:
 * - **Extra fields are allowed; missing or mistyped required fields are not.** The generator is run with
 *   `additionalProperties: true`, so an object upstream declares closed still accepts fields this host adds.
 * - **Unions are checked by their tag.** A union whose members all carry a distinct constant string in the
 *   same required property (`type`, `_tag`, ...) is validated against the member its tag names, so an error
 *   is reported against that member instead of against every member of the union.
 * - **Events whose `type` upstream does not declare are additions.** This host commits events upstream has
 *   no member for (e.g. `session.next.turn.started`, `session.next.text.corrected`). `validateEvents` checks
 *   an item whose `type` is a member of the union (`SessionDurableEvent` for history and per-session SSE,
 *   `V2Event` for the global stream) against that member, and an item of any other type only against the
 *   caller's list of allowed additions: an unknown type that is not listed fails. The same rule holds for
 *   events inside an answer (`session.history`'s `data`) when `validateResponse` or `validateType` is
 *   given the additions: there every place upstream types as one of the event unions is checked this way.
 * - **`void` answers are empty.** An operation upstream declares `204: void` must answer with no body (the
 *   upstream client turns an empty body into `{}`, so `undefined`, `null`, `""` and `{}` all count as empty).
 * - **`fs.read` answers raw bytes.** Upstream types it `Blob | File`, where `File` is upstream's own diff-file
 *   type shadowing the DOM one (a generator artifact); the wire is the file's content, so any binary or text
 *   body passes.
 *
 * Generating the schema takes a few seconds, so it is cached as a file under the OS temp dir, keyed by the
 * upstream package version, the generator version, this module's format version and a hash of the type file;
 * within one process it is built once.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"

/** Bumped whenever the way the schema is generated or post-processed changes, so stale caches are ignored. */
const FORMAT = 1
const SCHEMA_ID = "upstream"
const TAG_PROPERTIES = ["type", "_tag", "status"] as const
/** Upstream's event unions: where additions may stand in for a member. */
const EVENT_UNIONS = ["SessionDurableEvent", "V2Event"] as const

type JsonSchema = {
  $ref?: string
  anyOf?: Array<JsonSchema>
  oneOf?: Array<JsonSchema>
  type?: string | Array<string>
  const?: unknown
  properties?: Record<string, JsonSchema>
  required?: Array<string>
  [key: string]: unknown
}
type Definitions = Record<string, JsonSchema>

/** The union a list of events belongs to, and the event types this host adds to it. */
export interface EventListOptions {
  readonly unionType: "SessionDurableEvent" | "V2Event"
  /** Event types upstream does not declare that are allowed in this list. */
  readonly additions: ReadonlyArray<string>
}

export interface UpstreamContract {
  /** The upstream SDK version the schema was generated from. */
  readonly version: string
  /** The 2xx statuses upstream declares for a v2 operation (`session.list` -> `[200]`). */
  successStatuses(operation: string): ReadonlyArray<number>
  /**
   * Errors of `body` against upstream's 2xx answer of `operation` (a path under `client.v2`, e.g.
   * `session.list`, `session.permission.reply`); empty when it conforms. With `status`, that status must be
   * one upstream declares for the operation, and the body is checked against its type. Events inside the
   * body may be of a type in `additions` (see above).
   */
  validateResponse(operation: string, body: unknown, status?: number, additions?: ReadonlyArray<string>): Array<string>
  /**
   * Errors of `value` against one named upstream type (`SessionMessage`, `V2Event`, ...); empty when it
   * conforms. Events inside it may be of a type in `additions`.
   */
  validateType(typeName: string, value: unknown, additions?: ReadonlyArray<string>): Array<string>
  /** Errors of a list of events, each checked against its union member or the allowed additions (see above). */
  validateEvents(events: ReadonlyArray<unknown>, options: EventListOptions): Array<string>
  /** The `type` values the members of an upstream event union declare. */
  memberTypes(unionType: string): ReadonlyArray<string>
}

/** The directory of an installed package, found the way Node looks for it: up the `node_modules` chain. */
const packageDirectory = (name: string): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, "node_modules", name)
    if (existsSync(join(candidate, "package.json"))) return candidate
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`package ${name} is not installed (looked up from ${import.meta.url})`)
    dir = parent
  }
}

const packageVersion = (dir: string): string =>
  (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version

/** `upstream-sdk`'s v2 type file: the contract. */
export const upstreamTypesFile = () => join(packageDirectory("upstream-sdk"), "dist", "v2", "gen", "types.gen.d.ts")

const generate = async (typesFile: string): Promise<Definitions> => {
  const { createGenerator } = await import("ts-json-schema-generator")
  const generator = createGenerator({
    path: typesFile,
    type: "*",
    // Extra fields are allowed: never close an object upstream did not close with an index signature.
    additionalProperties: true,
    expose: "export",
    jsDoc: "none",
    topRef: true,
    encodeRefs: false,
    sortProps: false,
    skipTypeCheck: true,
  })
  const schema = generator.createSchema("*") as { definitions?: Definitions }
  return schema.definitions ?? {}
}

/** The generated definitions, from the temp-dir cache when it holds this exact contract. */
const loadDefinitions = async (): Promise<{ version: string; definitions: Definitions }> => {
  const upstream = packageDirectory("upstream-sdk")
  const version = packageVersion(upstream)
  const generatorVersion = packageVersion(packageDirectory("ts-json-schema-generator"))
  const typesFile = upstreamTypesFile()
  const hash = createHash("sha256").update(readFileSync(typesFile)).digest("hex").slice(0, 16)
  const cacheDir = join(tmpdir(), "opencode2-upstream-contract")
  const cacheFile = join(cacheDir, `sdk-${version}_generator-${generatorVersion}_format-${FORMAT}_${hash}.json`)
  if (existsSync(cacheFile)) {
    try {
      return { version, definitions: JSON.parse(readFileSync(cacheFile, "utf8")) as Definitions }
    } catch {
      // A damaged cache file is regenerated below.
    }
  }
  const definitions = await generate(typesFile)
  mkdirSync(cacheDir, { recursive: true })
  // Written beside the target and renamed, so a concurrent test file never reads half a cache.
  const partial = `${cacheFile}.${process.pid}.${Date.now()}.tmp`
  writeFileSync(partial, JSON.stringify(definitions))
  renameSync(partial, cacheFile)
  return { version, definitions }
}

const refName = (ref: string) => ref.replace(/^#\/definitions\//, "")

const resolve = (definitions: Definitions, schema: JsonSchema): JsonSchema | undefined => {
  const seen = new Set<string>()
  let current: JsonSchema | undefined = schema
  while (current?.$ref !== undefined && Object.keys(current).length === 1) {
    const name = refName(current.$ref)
    if (seen.has(name)) return undefined
    seen.add(name)
    current = definitions[name]
  }
  return current
}

/** The constant string `schema` (an object schema, maybe behind refs) requires in `property`, if any. */
const tagOf = (definitions: Definitions, schema: JsonSchema, property: string): string | undefined => {
  const member = resolve(definitions, schema)
  const value = member?.properties?.[property]?.const
  return typeof value === "string" && member?.required?.includes(property) ? value : undefined
}

/** The property that tags every member of `union` with a distinct constant, if there is one. */
const discriminantOf = (definitions: Definitions, union: Array<JsonSchema>): string | undefined =>
  TAG_PROPERTIES.find((property) => {
    const tags = union.map((member) => tagOf(definitions, member, property))
    return tags.every((tag) => tag !== undefined) && new Set(tags).size === tags.length
  })

/**
 * Rewrites every tagged union (`anyOf` whose members all carry a distinct constant in one required
 * property) as an ajv `discriminator` over `oneOf`: same values accepted, but errors name only the member
 * the value's tag selects.
 */
const tagUnions = (definitions: Definitions): Definitions => {
  const visit = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(visit)
    if (schema === null || typeof schema !== "object") return schema
    const out: JsonSchema = {}
    for (const [key, value] of Object.entries(schema as JsonSchema)) out[key] = visit(value)
    const union = out.anyOf
    if (union && union.length > 1 && Object.keys(out).length === 1) {
      const property = discriminantOf(definitions, union)
      if (property !== undefined) {
        return { type: "object", required: [property], discriminator: { propertyName: property }, oneOf: union }
      }
    }
    return out
  }
  return Object.fromEntries(Object.entries(definitions).map(([name, schema]) => [name, visit(schema) as JsonSchema]))
}

const describeError = (error: ErrorObject) => {
  const at = error.instancePath === "" ? "(root)" : error.instancePath
  const params = Object.keys(error.params).length > 0 ? ` ${JSON.stringify(error.params)}` : ""
  return `${at} ${error.message ?? error.keyword}${params}`
}

const pascal = (segment: string) => segment.charAt(0).toUpperCase() + segment.slice(1)

/** `session.permission.list` -> `V2SessionPermissionListResponses`: upstream's naming of v2 answers. */
export const responsesTypeName = (operation: string) => `V2${operation.split(".").map(pascal).join("")}Responses`

const isEmptyBody = (body: unknown) =>
  body === undefined ||
  body === null ||
  body === "" ||
  (typeof body === "object" && !Array.isArray(body) && Object.keys(body as object).length === 0)

const isRawBody = (body: unknown) =>
  typeof body === "string" || body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body)

/** Operations whose answer is a file's bytes, not JSON (see the module comment). */
const RAW_BODY_OPERATIONS: ReadonlySet<string> = new Set(["fs.read"])

const build = (version: string, generated: Definitions): UpstreamContract => {
  const definitions = tagUnions(generated)
  const ajv = new Ajv({ allErrors: true, strict: false, discriminator: true })
  ajv.addSchema({ $id: SCHEMA_ID, definitions })

  const members = new Map<string, Map<string, Array<string>>>()
  const membersOf = (unionType: string) => {
    const cached = members.get(unionType)
    if (cached) return cached
    const union = generated[unionType]?.anyOf
    if (!union) throw new Error(`upstream ${version} has no union type ${unionType}`)
    const byType = new Map<string, Array<string>>()
    for (const member of union) {
      const type = tagOf(generated, member, "type")
      if (type === undefined || member.$ref === undefined) {
        throw new Error(`a member of ${unionType} has no constant type: ${JSON.stringify(member)}`)
      }
      byType.set(type, [...(byType.get(type) ?? []), refName(member.$ref)])
    }
    members.set(unionType, byType)
    return byType
  }

  /**
   * The schema document for a list of additions: upstream's, except that each event union accepts, beside
   * its members, an object whose `type` is a listed addition upstream does not declare.
   */
  const documents = new Map<string, string>()
  const documentFor = (additions: ReadonlyArray<string>) => {
    const key = [...new Set(additions)].sort().join("\n")
    if (key === "") return SCHEMA_ID
    let id = documents.get(key)
    if (id === undefined) {
      id = `${SCHEMA_ID}-with-additions-${documents.size + 1}`
      const extended: Definitions = { ...definitions }
      for (const union of EVENT_UNIONS) {
        const declared = [...membersOf(union).keys()]
        const extra = [...new Set(additions)].filter((type) => !declared.includes(type))
        extended[`${union}Declared`] = definitions[union]!
        extended[union] = {
          if: { type: "object", required: ["type"], properties: { type: { enum: declared } } },
          // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's `then` keyword, never awaited
          then: { $ref: `#/definitions/${union}Declared` },
          else:
            extra.length === 0
              ? { not: {} }
              : { type: "object", required: ["type"], properties: { type: { enum: extra } } },
        }
      }
      ajv.addSchema({ $id: id, definitions: extended })
      documents.set(key, id)
    }
    return id
  }

  const compiled = new Map<string, ValidateFunction>()
  const validator = (document: string, pointer: string) => {
    const ref = `${document}#/definitions/${pointer}`
    let validate = compiled.get(ref)
    if (!validate) {
      validate = ajv.compile({ $ref: ref })
      compiled.set(ref, validate)
    }
    return validate
  }
  const run = (pointer: string, value: unknown, additions: ReadonlyArray<string> = []) => {
    const validate = validator(documentFor(additions), pointer)
    return validate(value) ? [] : (validate.errors ?? []).map(describeError)
  }

  const responses = (operation: string) => {
    const name = responsesTypeName(operation)
    const schema = definitions[name]
    if (!schema) throw new Error(`upstream ${version} has no v2 operation ${operation} (no type ${name})`)
    const statuses = Object.keys(schema.properties ?? {})
      .filter((key) => /^2\d\d$/.test(key))
      .map(Number)
    return { name, schema, statuses }
  }

  return {
    version,
    successStatuses: (operation) => responses(operation).statuses,
    validateResponse: (operation, body, status, additions) => {
      const { name, schema, statuses } = responses(operation)
      if (status !== undefined && !statuses.includes(status)) {
        return [`status ${status}: upstream answers ${operation} with ${statuses.join(" or ")}`]
      }
      const chosen = status ?? statuses[0]
      if (chosen === undefined) return [`upstream declares no 2xx answer for ${operation}`]
      if (RAW_BODY_OPERATIONS.has(operation)) {
        return isRawBody(body) ? [] : [`(root) must be the file's bytes, got ${typeof body}`]
      }
      if (schema.properties?.[String(chosen)]?.type === "null") {
        return isEmptyBody(body) ? [] : [`(root) must be empty (upstream answers ${chosen} with no body)`]
      }
      return run(`${name}/properties/${chosen}`, body, additions)
    },
    validateType: (typeName, value, additions) => {
      if (!definitions[typeName]) throw new Error(`upstream ${version} has no type ${typeName}`)
      return run(typeName, value, additions)
    },
    validateEvents: (events, { unionType, additions }) => {
      const byType = membersOf(unionType)
      const allowed = new Set(additions)
      return events.flatMap((event, index) => {
        const type = (event as { type?: unknown } | null)?.type
        if (typeof type !== "string") return [`[${index}] has no string type: ${JSON.stringify(event)}`]
        const names = byType.get(type)
        if (!names) {
          return allowed.has(type) ? [] : [`[${index}] ${type} is neither a ${unionType} member nor a listed addition`]
        }
        const failures = names.map((name) => run(name, event))
        if (failures.some((errors) => errors.length === 0)) return []
        return failures.flatMap((errors, i) => errors.map((error) => `[${index}] ${type} (${names[i]}): ${error}`))
      })
    },
    memberTypes: (unionType) => [...membersOf(unionType).keys()],
  }
}

let loading: Promise<UpstreamContract> | undefined

/** The upstream contract, built once per process (generated, or read from the temp-dir cache). */
export const upstreamContract = (): Promise<UpstreamContract> => {
  loading ??= loadDefinitions().then(({ version, definitions }) => build(version, definitions))
  return loading
}
