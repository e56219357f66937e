import { Context, Effect, Layer, Schema } from "effect"
import { parse, type ParseError } from "jsonc-parser"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { unsetEnvReferences, type UnsetEnv } from "./env.ts"
import { referencedVariables } from "./child-env.ts"
import { parseDuration } from "./duration.ts"
import { unknownConfigKeysWithSiblings } from "./schema.ts"
import { nearestKey } from "./nearest-key.ts"
import { describeParseError, lineColumn } from "./parse-error.ts"
import { configHome } from "./home.ts"
import { decodeMcpConfig } from "./mcp.ts"
import { ConfigSchema, type ConfigData } from "./shape.ts"

export { ProviderConfig } from "./provider.ts"

export { AgentConfig, ConfigSchema, PluginEntry, type ConfigData } from "./shape.ts"

/** The config file could not be read, parsed or validated. The message names the file and the problem. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("Config.Error", {
  path: Schema.String,
  message: Schema.String,
}) {}

export interface ConfigShape {
  readonly data: ConfigData
  /** The file the config came from, if any; relative plugin paths resolve against its directory. */
  readonly path?: string
  readonly directory: string
  /** Problems that did not stop loading, e.g. `unknown key "agent.build.sytem"`; the host logs them at start. */
  readonly warnings?: ReadonlyArray<string>
  /** Variables the config file references as `{env:VAR}`: secrets kept out of child processes. */
  readonly secrets?: ReadonlyArray<string>
  /** `{env:VAR}` references whose variable was not set (substituted by ""), reported at start. */
  readonly unsetEnv?: ReadonlyArray<UnsetEnv>
  /**
   * The global config directory, whose `command/` and `skill/` apply to every session (see `configHome`).
   * Default `configHome(process.env)`.
   */
  readonly home?: string
}

const substitute = (text: string, env: Record<string, string | undefined>) =>
  text.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => JSON.stringify(env[name] ?? "").slice(1, -1))

/** The directories searched for a project config: `cwd`, then each parent up to the git root (inclusive). */
export const projectDirectories = (cwd: string): Array<string> => {
  const chain: Array<string> = []
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.push(dir)
    if (existsSync(join(dir, ".git"))) return chain
    if (dirname(dir) === dir) return [resolve(cwd)] // not in a git checkout: the working directory only
  }
}

/**
 * Finds `opencode.json`: `OPENCODE_CONFIG`, else the nearest project config walking up from `cwd` to the
 * git root, else `$XDG_CONFIG_HOME/opencode2/`.
 */
export const findConfig = (cwd: string, env: Record<string, string | undefined>): string | undefined => {
  if (env.OPENCODE_CONFIG) return resolve(cwd, env.OPENCODE_CONFIG)
  for (const dir of projectDirectories(cwd)) {
    for (const name of ["opencode.jsonc", "opencode.json"]) {
      const local = join(dir, name)
      if (existsSync(local)) return local
    }
  }
  for (const name of ["opencode.jsonc", "opencode.json"]) {
    const global = join(configHome(env), name)
    if (existsSync(global)) return global
  }
  return undefined
}

export { lineColumn }

/**
 * `unknown key "…"` for every key of the file the config schema does not declare, with the nearest declared
 * key at that place when one is a likely typo (`did you mean "model"?`).
 */
export const configWarnings = (text: string) => {
  const raw = parse(text, [], { allowTrailingComma: true }) as unknown
  return unknownConfigKeysWithSiblings(raw ?? {}).map(({ path, key, declared }) => {
    const near = nearestKey(key, declared)
    return `unknown key "${path}" (ignored)${near !== undefined ? `; did you mean "${near}"?` : ""}`
  })
}

/** A retention duration that does not parse, named by its key; retention deletes data, so it never guesses. */
const invalidRetention = (data: ConfigData): string | undefined => {
  const retention = data.storage?.retention ?? {}
  for (const key of ["prune", "delete", "journal"] as const) {
    const value = retention[key]
    if (value !== undefined && parseDuration(value) === undefined) {
      return `storage.retention.${key}: ${JSON.stringify(value)} is not a duration (a whole number and s, m, h, d or w, e.g. "14d")`
    }
  }
  return undefined
}

/** One message per `mcp` entry `parseConfig` left out, naming the offending field (`mcp.x.command: …`). */
export const mcpWarnings = (text: string, env: Record<string, string | undefined> = process.env) => {
  const raw = parse(substitute(text, env), [], { allowTrailingComma: true }) as unknown
  const mcp = typeof raw === "object" && raw !== null ? (raw as { mcp?: unknown }).mcp : undefined
  return decodeMcpConfig(mcp).errors.map((error) => `MCP server left out: ${error.message}`)
}

export const parseConfig = (text: string, path: string, env: Record<string, string | undefined> = process.env) => {
  // Syntax is checked on the file as written, so the line and column point into it (substitution shifts offsets).
  const errors: Array<ParseError> = []
  parse(text, errors, { allowTrailingComma: true })
  if (errors.length > 0) return Effect.fail(new ConfigError({ path, message: describeParseError(text, errors[0]!) }))
  const raw = parse(substitute(text, env), [], { allowTrailingComma: true })
  // A malformed MCP server is reported (`mcpWarnings`) and left out; it never stops the host from starting.
  const value =
    typeof raw === "object" && raw !== null && "mcp" in raw
      ? { ...raw, mcp: decodeMcpConfig((raw as { mcp: unknown }).mcp).servers }
      : raw
  return Schema.decodeUnknownEffect(ConfigSchema)(value ?? {}).pipe(
    Effect.mapError((error) => new ConfigError({ path, message: error.message })),
    Effect.flatMap((data) => {
      const invalid = invalidRetention(data)
      return invalid ? Effect.fail(new ConfigError({ path, message: invalid })) : Effect.succeed(data)
    }),
  )
}

export class Config extends Context.Service<Config, ConfigShape>()("@opencode-ai/core/config/Config") {
  /** Loads the config file that applies to `cwd` (see `findConfig`). No file means all defaults. */
  static readonly load = (cwd: string = process.cwd(), env: Record<string, string | undefined> = process.env) =>
    Effect.gen(function* () {
      const path = findConfig(cwd, env)
      const home = configHome(env)
      if (!path) return { data: {}, directory: cwd, home } satisfies ConfigShape
      const text = yield* Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: (cause) => new ConfigError({ path, message: `cannot read: ${(cause as Error).message}` }),
      })
      const data = yield* parseConfig(text, path, env)
      const warnings = [...configWarnings(text), ...mcpWarnings(text, env)].map((warning) => `${path}: ${warning}`)
      return {
        data,
        path,
        directory: dirname(path),
        secrets: referencedVariables(text),
        ...(warnings.length > 0 ? { warnings } : {}),
        unsetEnv: unsetEnvReferences(text, env),
        home,
      } satisfies ConfigShape
    })

  static readonly layer = (config: ConfigShape) => Layer.succeed(Config, Config.of(config))
}
