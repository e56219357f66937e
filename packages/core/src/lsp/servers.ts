import { accessSync, constants } from "node:fs"
import { delimiter, dirname, extname, isAbsolute, join, resolve } from "node:path"
import type { LspConfig } from "../config/lsp.ts"

/** A language server ready to start: its binary found, its command line and the extensions it serves. */
export interface ServerSpec {
  readonly name: string
  readonly command: ReadonlyArray<string>
  readonly extensions: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly initialization?: Readonly<Record<string, unknown>>
}

/** The built-in servers; each is used only when its binary is found (never downloaded). */
export const BUILTIN_SERVERS: ReadonlyArray<Omit<ServerSpec, "env" | "initialization">> = [
  {
    name: "typescript",
    command: ["typescript-language-server", "--stdio"],
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
  },
  { name: "pyright", command: ["pyright-langserver", "--stdio"], extensions: [".py", ".pyi"] },
  { name: "gopls", command: ["gopls"], extensions: [".go"] },
  { name: "rust-analyzer", command: ["rust-analyzer"], extensions: [".rs"] },
]

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The absolute path of `binary`: as given when it has a slash (relative to `directory`), else from the
 * nearest `node_modules/.bin` of `directory` or its parents, else from `PATH`. Undefined when not found.
 */
export const findBinary = (
  binary: string,
  directory: string,
  path: string | undefined = process.env.PATH,
): string | undefined => {
  if (binary.includes("/")) {
    const full = isAbsolute(binary) ? binary : resolve(directory, binary)
    return executable(full) ? full : undefined
  }
  for (let dir = resolve(directory); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", binary)
    if (executable(candidate)) return candidate
    if (dirname(dir) === dir) break
  }
  for (const entry of (path ?? "").split(delimiter)) {
    if (entry === "") continue
    const candidate = join(entry, binary)
    if (executable(candidate)) return candidate
  }
  return undefined
}

/**
 * The servers available in `directory` under `config`: the built-ins whose binary is found, overridden,
 * disabled or joined by the configured ones. A configured server whose binary is missing is left out.
 */
export const availableServers = (
  config: LspConfig | undefined,
  directory: string,
  path: string | undefined = process.env.PATH,
): ReadonlyArray<ServerSpec> => {
  if (config === false) return []
  const entries = config ?? {}
  const out: Array<ServerSpec> = []
  const names = new Set([...BUILTIN_SERVERS.map((s) => s.name), ...Object.keys(entries)])
  for (const name of names) {
    const entry = entries[name]
    if (entry !== undefined && "disabled" in entry) continue
    const builtin = BUILTIN_SERVERS.find((s) => s.name === name)
    const command = entry?.command ?? builtin?.command
    const extensions = entry?.extensions ?? builtin?.extensions
    if (command === undefined || extensions === undefined || extensions.length === 0) continue
    const binary = findBinary(command[0]!, directory, path)
    if (binary === undefined) continue
    out.push({
      name,
      command: [binary, ...command.slice(1)],
      extensions,
      ...(entry?.env ? { env: entry.env } : {}),
      ...(entry?.initialization ? { initialization: entry.initialization } : {}),
    })
  }
  return out
}

/** The server of `file` among `servers`: the first whose extensions include the file's. */
export const serverFor = (servers: ReadonlyArray<ServerSpec>, file: string): ServerSpec | undefined => {
  const ext = extname(file).toLowerCase()
  return servers.find((s) => s.extensions.includes(ext))
}

const LANGUAGE_IDS: Readonly<Record<string, string>> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
}

/** The protocol's language id of a file (`typescript`, `python`, ...), from its extension. */
export const languageId = (file: string): string => {
  const ext = extname(file).toLowerCase()
  return LANGUAGE_IDS[ext] ?? ext.slice(1)
}
