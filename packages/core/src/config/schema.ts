import { Schema } from "effect"
import { ConfigSchema } from "./shape.ts"

/**
 * The JSON Schema of `opencode.json`, generated from the config `Schema` (so it cannot drift from what the
 * host accepts), and the unknown-key check that warns about typos. Served at `GET /config.schema.json`;
 * a config file may point `$schema` at it for editor completion.
 */

type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const isNull = (member: Json) => isObject(member) && member.type === "null" && Object.keys(member).length === 1

/**
 * Effect documents an optional field as `X | null` and leaves structs open; the file is stricter: an
 * absent field is omitted (never null) and a key no struct declares is unknown, which editors then flag.
 */
const tighten = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(tighten)
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) out[key] = tighten(value)
  if (Array.isArray(out.anyOf)) {
    const members = out.anyOf.filter((member) => !isNull(member))
    if (members.length !== out.anyOf.length) {
      const { anyOf: _, ...rest } = out
      return members.length === 1 && isObject(members[0]) ? { ...members[0], ...rest } : { ...rest, anyOf: members }
    }
  }
  if (isObject(out.properties) && out.additionalProperties === true) out.additionalProperties = false
  return out
}

/** The JSON Schema (draft 2020-12) of `opencode.json`. */
export const configJsonSchema = (): JsonObject => {
  const document = Schema.toJsonSchemaDocument(ConfigSchema) as unknown as {
    schema: JsonObject
    definitions?: JsonObject
  }
  const definitions =
    document.definitions && Object.keys(document.definitions).length > 0 ? document.definitions : undefined
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "opencode2 configuration (opencode.json)",
    ...(tighten(document.schema) as JsonObject),
    ...(definitions ? { $defs: tighten(definitions) } : {}),
  }
}

const resolveRef = (schema: JsonObject, root: JsonObject): JsonObject => {
  const ref = schema.$ref
  if (typeof ref !== "string") return schema
  const name = ref.split("/").at(-1)!
  const defs = isObject(root.$defs) ? root.$defs : {}
  return isObject(defs[name]) ? resolveRef(defs[name], root) : schema
}

/**
 * The dotted paths of keys no part of the schema declares (`agent.build.sytem`), in document order. A
 * typo'd key is otherwise silently ignored; the host warns with these paths and starts anyway.
 */
export const unknownConfigKeys = (value: unknown, root: JsonObject = configJsonSchema()): Array<string> =>
  unknownConfigKeysWithSiblings(value, root).map((found) => found.path)

/** An undeclared key: its dotted path, and the keys the schema declares at that place (for "did you mean"). */
export interface UnknownKey {
  readonly path: string
  readonly key: string
  readonly declared: ReadonlyArray<string>
}

/** Like `unknownConfigKeys`, with the keys declared beside each unknown one. */
export const unknownConfigKeysWithSiblings = (
  value: unknown,
  root: JsonObject = configJsonSchema(),
): Array<UnknownKey> => {
  const found: Array<UnknownKey> = []
  const walk = (node: unknown, schema: JsonObject, path: string) => {
    schema = resolveRef(schema, root)
    if (Array.isArray(schema.anyOf)) {
      // Follow the member that has the value's shape (objects, arrays); scalars have no keys.
      // A tagged member (`type: "local"`, `type: "remote"`) is chosen by the value's tag first.
      const tag = isObject(node) ? node.type : undefined
      const tagged = schema.anyOf.find((m) => {
        const properties = isObject(m) ? resolveRef(m, root).properties : undefined
        const declared = isObject(properties) && isObject(properties.type) ? properties.type : undefined
        return (
          declared !== undefined &&
          (declared.const === tag ||
            (Array.isArray(declared.enum) && declared.enum.length === 1 && declared.enum[0] === tag))
        )
      })
      const member =
        (tag !== undefined ? tagged : undefined) ??
        schema.anyOf.find(
          (m) =>
            isObject(m) &&
            ((isObject(node) && resolveRef(m, root).type === "object") ||
              (Array.isArray(node) && resolveRef(m, root).type === "array")),
        )
      if (isObject(member)) walk(node, member, path)
      return
    }
    if (Array.isArray(node) && isObject(schema.items)) {
      node.forEach((item, index) => walk(item, schema.items as JsonObject, `${path}[${index}]`))
      return
    }
    if (!isObject(node)) return
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const [key, child] of Object.entries(node)) {
      const at = path ? `${path}.${key}` : key
      if (isObject(properties[key])) walk(child, properties[key], at)
      else if (isObject(schema.additionalProperties)) walk(child, schema.additionalProperties, at)
      else if (schema.additionalProperties === false) found.push({ path: at, key, declared: Object.keys(properties) })
    }
  }
  walk(value, root, "")
  return found
}
