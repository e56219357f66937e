import { type Dirent, statSync } from "node:fs"
import * as fs from "node:fs/promises"
import { join, relative, sep } from "node:path"
import type { ConfigDiagnostic } from "@opencode-ai/schema"
import { Effect } from "effect"
import { FrontmatterError } from "./frontmatter.ts"

/** Largest definition file read; a bigger one is reported and left out (it would be sent to the model whole). */
export const DEFINITION_MAX_BYTES = 256 * 1024
/** Most files read under one root, so a huge tree under `.opencode/` cannot stall a listing. */
export const DEFINITION_MAX_FILES = 1000

/** A definition file found under a root: its path, its path relative to the root, and its text. */
export interface DefinitionFile {
  readonly path: string
  readonly relative: string
  readonly text: string
}

/** A file that was found but could not be read (too large, unreadable). */
export interface DefinitionProblem {
  readonly path: string
  readonly message: string
}

const entries = async (directory: string): Promise<Array<Dirent>> => {
  try {
    const found = await fs.readdir(directory, { withFileTypes: true })
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch {
    return [] // a missing (or unreadable) root simply defines nothing
  }
}

/**
 * The files under `root` whose path relative to it `accept`s, read asynchronously (never blocking the event
 * loop), sorted by path. Symbolic links are not followed (a link cycle cannot loop the walk); a missing root
 * is empty.
 */
export const readDefinitionFiles = (
  root: string,
  accept: (relative: string) => boolean,
): Effect.Effect<{
  readonly files: ReadonlyArray<DefinitionFile>
  readonly problems: ReadonlyArray<DefinitionProblem>
}> =>
  Effect.promise(async () => {
    // Most roots do not exist (a project without `.opencode/command/`), and they are looked at on every
    // prompt: a failed `readdir` costs a rejected promise and an error object each time, which made these
    // lookups the largest share of a turn's host time (bench/turn-overhead.ts). One stat that reports a
    // missing path without throwing answers that case at once.
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) return { files: [], problems: [] }
    const files: Array<DefinitionFile> = []
    const problems: Array<DefinitionProblem> = []
    let seen = 0
    const visit = async (directory: string): Promise<void> => {
      for (const entry of await entries(directory)) {
        if (seen >= DEFINITION_MAX_FILES) return
        const path = join(directory, entry.name)
        if (entry.isDirectory()) {
          await visit(path)
          continue
        }
        const rel = relative(root, path).split(sep).join("/")
        if (!entry.isFile() || !accept(rel)) continue
        seen++
        try {
          const stat = await fs.stat(path)
          if (stat.size > DEFINITION_MAX_BYTES) {
            problems.push({ path, message: `larger than ${DEFINITION_MAX_BYTES} bytes; left out` })
            continue
          }
          files.push({ path, relative: rel, text: await fs.readFile(path, "utf8") })
        } catch (error) {
          problems.push({ path, message: `cannot read: ${(error as Error).message}` })
        }
      }
    }
    await visit(root)
    return { files, problems }
  })

/**
 * The roots definitions of one kind are read from, highest precedence first: `.opencode/<sub>` of the
 * session directory for each of `subdirectories`, then `<sub>` of the global config directory.
 */
export const definitionRoots = (
  subdirectories: ReadonlyArray<string>,
  directory: string,
  home: string,
): Array<string> => [
  ...subdirectories.map((sub) => join(directory, ".opencode", sub)),
  ...subdirectories.map((sub) => join(home, sub)),
]

/** What a kind of definition file needs to be loaded: which files, how each is named and parsed. */
export interface DefinitionKind<A extends { readonly name: string }> {
  readonly kind: ConfigDiagnostic["kind"]
  readonly accept: (relative: string) => boolean
  /** The name a file defines, when it is known before parsing (a hidden file is then not parsed at all). */
  readonly nameOf?: (file: DefinitionFile) => string
  /** The definition, or a throw of `FrontmatterError` naming what is wrong. */
  readonly parse: (file: DefinitionFile) => A
}

/**
 * The definitions under `roots`, by name, sorted: a root of higher precedence hides a later one's definition
 * of the same name, and a file that cannot be read or does not parse becomes a diagnostic.
 */
export const loadDefinitions = <A extends { readonly name: string }>(
  definition: DefinitionKind<A>,
  roots: ReadonlyArray<string>,
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly diagnostics: ReadonlyArray<ConfigDiagnostic> }> =>
  Effect.gen(function* () {
    const byName = new Map<string, A>()
    const diagnostics: Array<ConfigDiagnostic> = []
    for (const root of roots) {
      const { files, problems } = yield* readDefinitionFiles(root, definition.accept)
      for (const problem of problems) diagnostics.push({ kind: definition.kind, ...problem })
      for (const file of files) {
        if (definition.nameOf && byName.has(definition.nameOf(file))) continue
        try {
          const item = definition.parse(file)
          if (!byName.has(item.name)) byName.set(item.name, item)
        } catch (error) {
          if (!(error instanceof FrontmatterError)) throw error
          diagnostics.push({ kind: definition.kind, path: file.path, message: error.message })
        }
      }
    }
    const items = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    diagnostics.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    return { items, diagnostics }
  })
