import { ID_PREFIXES, type IdName, idPattern } from "@opencode-ai/schema"
import { HttpApi, OpenApi } from "effect/http-api"
import { Api } from "./api.ts"

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const locationParameter = {
  name: "location",
  in: "query",
  required: false,
  style: "deepObject",
  explode: true,
  schema: {
    type: "object",
    properties: { directory: { type: "string" }, workspace: { type: "string" } },
    additionalProperties: false,
  },
  description: "The location to work in (`location[directory]=...`); default the server's own.",
}

/**
 * Upstream's clients send a location as one deep-object query parameter (`location[directory]=...`), which
 * the server declares as two literal keys: the document shows the one parameter, as upstream's does, so the
 * generated method takes `location: { directory }`. The plain `directory` alias is accepted but not shown.
 */
const locationParameters = (paths: JsonObject): JsonObject => {
  const out: JsonObject = {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    const methods: JsonObject = {}
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !Array.isArray(operation.parameters)) {
        methods[method] = operation
        continue
      }
      const parameters = operation.parameters.filter(isObject)
      const located = parameters.some((p) => p.in === "query" && p.name === "location[directory]")
      methods[method] = located
        ? {
            ...operation,
            parameters: [
              locationParameter,
              ...parameters.filter(
                (p) =>
                  !(
                    p.in === "query" &&
                    ["location[directory]", "location[workspace]", "directory"].includes(String(p.name))
                  ),
              ),
            ],
          }
        : operation
    }
    out[path] = methods
  }
  return out
}

const NON_FINITE = ["Infinity", "-Infinity", "NaN"]
const isNull = (member: Json) => isObject(member) && member.type === "null" && Object.keys(member).length === 1
const NUMBER_STRING = /^\^\[\+-\]\?/
/** Bounds of integer query parameters (their string-tree codec loses them in the document). */
const PARAMETER_BOUNDS: Record<string, JsonObject> = { limit: { minimum: 1, maximum: 200 } }

/**
 * Tidies what Effect's generic JSON codec documents but this API never sends, so the SDK types are exact:
 * - a number is documented as `number | "Infinity" | "-Infinity" | "NaN"`; every number here is finite;
 * - an optional property is documented as `X | null`; absent properties are omitted, never null;
 * - an integer query parameter is documented as a numeric string pattern; it is an integer;
 * - a streamed body carries Effect's own `x-effect-stream` marker, which other clients do not read.
 */
const normalize = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(normalize)
  if (!isObject(node)) return node
  if (Array.isArray(node.anyOf)) {
    const members = node.anyOf
    const finite = members.some((member) => isObject(member) && member.type === "number")
      ? members.filter((member) => !(isObject(member) && JSON.stringify(member.enum) === JSON.stringify(NON_FINITE)))
      : members
    if (finite.length !== members.length) {
      const { anyOf: _, ...rest } = node
      return normalize(
        finite.length === 1 && isObject(finite[0]) ? { ...finite[0], ...rest } : { ...rest, anyOf: finite },
      )
    }
  }
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) if (key !== "x-effect-stream") out[key] = normalize(value)
  if (isObject(out.properties)) {
    const required = new Set(Array.isArray(out.required) ? out.required : [])
    for (const [name, property] of Object.entries(out.properties)) {
      if (required.has(name) || !isObject(property) || !Array.isArray(property.anyOf)) continue
      const members = property.anyOf.filter((member) => !isNull(member))
      if (members.length === property.anyOf.length) continue
      const { anyOf: _, ...rest } = property
      out.properties[name] =
        members.length === 1 && isObject(members[0]) ? { ...members[0], ...rest } : { ...rest, anyOf: members }
    }
  }
  // Path ids are checked against their prefix and alphabet before routing.
  const id =
    out.in === "path" && typeof out.name === "string" && out.name in ID_PREFIXES
      ? idPattern(out.name as IdName)
      : undefined
  if (id !== undefined && isObject(out.schema) && out.schema.type === "string")
    out.schema = { ...out.schema, pattern: id }
  if (typeof out.in === "string" && isObject(out.schema) && out.schema.type === "string") {
    const pattern = out.schema.pattern
    if (typeof pattern === "string" && NUMBER_STRING.test(pattern)) {
      out.schema = { type: "integer", ...PARAMETER_BOUNDS[String(out.name)] }
    }
  }
  return out
}

/**
 * Effect names error components after their encoded side (`SessionNotFoundErrorEncoded`); the wire body
 * is exactly the tagged error, so the document uses the tag (`SessionNotFoundError`).
 */
const ENCODED_ERROR = /^(\w+Error)Encoded$/
const renameErrors = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(renameErrors)
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "$ref" && typeof value === "string"
        ? value.replace(/^(#\/components\/schemas\/\w+Error)Encoded$/, "$1")
        : renameErrors(value)
  }
  return out
}
const renameErrorComponents = (schemas: Json | undefined): JsonObject => {
  const out: JsonObject = {}
  if (!isObject(schemas)) return out
  for (const [name, schema] of Object.entries(schemas)) out[name.replace(ENCODED_ERROR, "$1")] = schema
  return out
}

const sortKeys = (record: Json | undefined): JsonObject => {
  const out: JsonObject = {}
  if (!isObject(record)) return out
  for (const key of Object.keys(record).sort()) out[key] = record[key]!
  return out
}

/**
 * The OpenAPI document the SDK is generated from, served at `GET /openapi.json` and committed as
 * `packages/sdk/openapi.json`. Deterministic: paths and component schemas are sorted by name.
 */
export const openApiDocument = (): JsonObject => {
  const spec = renameErrors(normalize(OpenApi.fromApi(Api) as unknown as Json)) as JsonObject
  const components = isObject(spec.components) ? spec.components : {}
  const tags = Array.isArray(spec.tags) ? spec.tags : []
  return {
    openapi: spec.openapi!,
    info: spec.info!,
    tags,
    security: spec.security ?? [],
    paths: sortKeys(locationParameters(spec.paths as JsonObject)),
    components: {
      ...components,
      schemas: sortKeys(renameErrorComponents(components.schemas)),
      securitySchemes: sortKeys(components.securitySchemes),
    },
  }
}

/**
 * Every path of `openApiDocument()`, read from the HttpApi declaration without building the document:
 * the server needs them to register its routes, and building the whole document (every schema compiled
 * to JSON Schema) was a third of the compiled binary's start-up. The document is built when requested.
 */
export const apiPaths = (): Array<string> => {
  const paths: Array<string> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => paths.push(endpoint.path.replace(/:(\w+)/g, "{$1}")),
  })
  return [...new Set(paths)].sort()
}

/** The document as committed: two-space indented, with a final newline. */
export const openApiText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`
