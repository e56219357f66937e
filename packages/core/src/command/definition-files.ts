import { type Dirent, statSync } from "node:fs"
import * as fs from "node:fs/promises"
import { join, relative, sep } from "node:path"
import { Effect } from "effect"

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
