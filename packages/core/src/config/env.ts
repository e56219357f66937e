import { parse } from "jsonc-parser"

/** A `{env:VAR}` reference in the config whose variable is not set, and where it appears. */
export interface UnsetEnv {
  /** The variable's name. */
  readonly name: string
  /** Where it is referenced, as a key path (e.g. `["provider", "local", "apiKey"]`). */
  readonly path: ReadonlyArray<string>
}

const REFERENCE = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * Finds the `{env:VAR}` references of a config text whose variable is unset. Substitution turns them into
 * empty strings, which would otherwise surface much later as a confusing authentication failure; the host
 * reports them at start, and a turn that needs one fails naming it.
 */
export const unsetEnvReferences = (text: string, env: Record<string, string | undefined>): Array<UnsetEnv> => {
  const found: Array<UnsetEnv> = []
  const walk = (value: unknown, path: Array<string>) => {
    if (typeof value === "string") {
      for (const match of value.matchAll(REFERENCE)) {
        if (env[match[1]!] === undefined) found.push({ name: match[1]!, path })
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, [...path, String(index)]))
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key])
    }
  }
  walk(parse(text, [], { allowTrailingComma: true }), [])
  return found
}
