import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, extname, join, resolve } from "node:path"
import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import type { FormatterConfig } from "../config/lsp.ts"
import { findBinary } from "../lsp/servers.ts"

/** What formatting one file came to: reformatted or not, or the formatter's failure (the file is kept). */
export interface FormatOutcome {
  readonly formatter: string
  readonly changed: boolean
  readonly error?: string
}

interface FormatterSpec {
  readonly name: string
  /** `$FILE` stands for the file's absolute path. */
  readonly command: ReadonlyArray<string>
  readonly extensions: ReadonlyArray<string>
  /** Whether the project in `directory` asks for this formatter (its config file is there). */
  readonly configured: (directory: string, stop: string) => boolean
}

/** A formatter run longer than this is killed and reported as failed. */
export const FORMAT_TIMEOUT_MS = 10_000

/** Each directory from `start` up to `stop` (inclusive), or to the filesystem root when `stop` is not above. */
const upwards = function* (start: string, stop: string) {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    yield dir
    if (dir === stop || dirname(dir) === dir) return
  }
}

const anyFile =
  (names: ReadonlyArray<string>, inFile?: { readonly name: string; readonly test: (text: string) => boolean }) =>
  (directory: string, stop: string) => {
    for (const dir of upwards(directory, stop)) {
      if (names.some((name) => existsSync(join(dir, name)))) return true
      if (inFile && existsSync(join(dir, inFile.name))) {
        try {
          if (inFile.test(readFileSync(join(dir, inFile.name), "utf8"))) return true
        } catch {
          // Unreadable: not configured there.
        }
      }
    }
    return false
  }

const PRETTIER_FILES = [
  ".prettierrc",
  ".prettierrc.json",
  ".prettierrc.json5",
  ".prettierrc.yaml",
  ".prettierrc.yml",
  ".prettierrc.toml",
  ".prettierrc.js",
  ".prettierrc.cjs",
  ".prettierrc.mjs",
  "prettier.config.js",
  "prettier.config.cjs",
  "prettier.config.mjs",
  "prettier.config.ts",
]

/** The built-in formatters, each used only when the project configures it and its binary is found. */
export const BUILTIN_FORMATTERS: ReadonlyArray<FormatterSpec> = [
  {
    name: "prettier",
    command: ["prettier", "--write", "$FILE"],
    extensions: [
      ".js",
      ".jsx",
      ".mjs",
      ".cjs",
      ".ts",
      ".tsx",
      ".mts",
      ".cts",
      ".json",
      ".jsonc",
      ".css",
      ".scss",
    ].concat([".less", ".html", ".vue", ".md", ".mdx", ".yaml", ".yml", ".graphql"]),
    configured: anyFile(PRETTIER_FILES, { name: "package.json", test: (text) => /"prettier"\s*:/.test(text) }),
  },
  {
    name: "biome",
    command: ["biome", "format", "--write", "$FILE"],
    extensions: [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".json", ".jsonc", ".css"],
    configured: anyFile(["biome.json", "biome.jsonc"]),
  },
  { name: "gofmt", command: ["gofmt", "-w", "$FILE"], extensions: [".go"], configured: anyFile(["go.mod"]) },
  {
    name: "rustfmt",
    command: ["rustfmt", "$FILE"],
    extensions: [".rs"],
    configured: anyFile(["Cargo.toml", "rustfmt.toml", ".rustfmt.toml"]),
  },
  {
    name: "ruff",
    command: ["ruff", "format", "$FILE"],
    extensions: [".py", ".pyi"],
    configured: anyFile(["ruff.toml", ".ruff.toml"], { name: "pyproject.toml", test: (t) => t.includes("[tool.ruff") }),
  },
]

/** The formatter of `file` under `config`: a configured one for its extension, else a built-in the project uses. */
export const formatterFor = (
  config: FormatterConfig | undefined,
  directory: string,
  file: string,
):
  | { readonly name: string; readonly command: ReadonlyArray<string>; readonly env?: Record<string, string> }
  | undefined => {
  if (config === false) return undefined
  const entries = config ?? {}
  const ext = extname(file).toLowerCase()
  for (const [name, entry] of Object.entries(entries)) {
    if (entry.disabled || BUILTIN_FORMATTERS.some((b) => b.name === name)) continue
    if (!entry.command || !(entry.extensions ?? []).includes(ext)) continue
    const binary = findBinary(entry.command[0]!, directory)
    if (binary)
      return {
        name,
        command: [binary, ...entry.command.slice(1)],
        ...(entry.environment ? { env: entry.environment } : {}),
      }
  }
  for (const builtin of BUILTIN_FORMATTERS) {
    const entry = entries[builtin.name]
    if (entry?.disabled) continue
    if (!(entry?.extensions ?? builtin.extensions).includes(ext)) continue
    if (!builtin.configured(dirname(file), directory)) continue
    const command = entry?.command ?? builtin.command
    const binary = findBinary(command[0]!, directory)
    if (binary)
      return {
        name: builtin.name,
        command: [binary, ...command.slice(1)],
        ...(entry?.environment ? { env: entry.environment } : {}),
      }
  }
  return undefined
}

const run = (command: ReadonlyArray<string>, cwd: string, env: Record<string, string> | undefined) =>
  new Promise<void>((resolveRun, rejectRun) => {
    const child = spawn(command[0]!, command.slice(1), {
      cwd,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-1_000)))
    const timer = setTimeout(() => child.kill("SIGKILL"), FORMAT_TIMEOUT_MS)
    child.once("error", (error) => {
      clearTimeout(timer)
      rejectRun(error)
    })
    child.once("exit", (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolveRun()
      else
        rejectRun(
          new Error(
            `${signal === "SIGKILL" ? `killed after ${FORMAT_TIMEOUT_MS} ms` : `exit ${signal ?? code}`}${stderr.trim() ? `: ${stderr.trim().split("\n")[0]}` : ""}`,
          ),
        )
    })
  })

/**
 * The formatters (`formatter` in `opencode.json`, docs/lsp.md): run on a file after an edit applies.
 * Never fails: a formatter's failure is an outcome with its error, the file as the formatter left it.
 */
export class Formatters extends Context.Service<
  Formatters,
  {
    /** Formats `file` (absolute, inside `directory`); undefined when no formatter applies. */
    format(directory: string, file: string): Effect.Effect<FormatOutcome | undefined>
  }
>()("@opencode-ai/core/format/Formatters") {
  static readonly layer = Layer.effect(
    Formatters,
    Effect.gen(function* () {
      const config = yield* Config
      const format = Effect.fn("Formatters.format")((directory: string, file: string) =>
        Effect.promise(async (): Promise<FormatOutcome | undefined> => {
          const formatter = formatterFor(config.data.formatter, directory, file)
          if (formatter === undefined) return undefined
          try {
            const before = await readFile(file, "utf8")
            await run(
              formatter.command.map((part) => part.replaceAll("$FILE", file)),
              directory,
              formatter.env,
            )
            const after = await readFile(file, "utf8")
            return { formatter: formatter.name, changed: before !== after }
          } catch (error) {
            return {
              formatter: formatter.name,
              changed: false,
              error: error instanceof Error ? error.message : String(error),
            }
          }
        }),
      )
      return { format }
    }),
  )
}
