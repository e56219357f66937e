/**
 * The instruction reader remembers file texts between model requests; what it remembers must never
 * outlive the file: an edit, a removal or a swap for a symlink out of the project shows on the next read.
 */
import { Effect } from "effect"
import { mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { makeInstructionReader } from "../src/turn/instructions.ts"
import { tempDir } from "./support/tmp.ts"

const setup = () => {
  const root = tempDir("oc2-instructions-")
  const project = join(root, "project")
  const outside = join(root, "outside")
  mkdirSync(project)
  mkdirSync(outside)
  return { project, outside, reader: makeInstructionReader() }
}

const texts = (reader: ReturnType<typeof makeInstructionReader>, directory: string, files: Array<string>) =>
  reader.read(directory, files).pipe(Effect.map((list) => list.map(({ file, text }) => `${file}=${text}`)))

describe("instruction reader", () => {
  it.effect("sees an edit of the same size made within the same second", () =>
    Effect.gen(function* () {
      const { project, reader } = setup()
      const file = join(project, "AGENTS.md")
      writeFileSync(file, "version one")
      utimesSync(file, 1_000, 1_000)
      expect(yield* texts(reader, project, ["AGENTS.md"])).toEqual(["AGENTS.md=version one"])
      writeFileSync(file, "version two")
      utimesSync(file, 1_000, 1_000)
      // Same size and modification time: the change time (and a replaced inode below) still tell.
      expect(yield* texts(reader, project, ["AGENTS.md"])).toEqual(["AGENTS.md=version two"])
      writeFileSync(join(project, "next"), "version six")
      utimesSync(join(project, "next"), 1_000, 1_000)
      renameSync(join(project, "next"), file)
      expect(yield* texts(reader, project, ["AGENTS.md"])).toEqual(["AGENTS.md=version six"])
    }),
  )

  it.effect("drops a removed file and refuses a remembered name swapped for a symlink out of the directory", () =>
    Effect.gen(function* () {
      const { project, outside, reader } = setup()
      writeFileSync(join(project, "AGENTS.md"), "inside")
      writeFileSync(join(project, "NOTES.md"), "notes")
      writeFileSync(join(outside, "secret.md"), "outside secret")
      expect(yield* texts(reader, project, ["AGENTS.md", "NOTES.md"])).toEqual(["AGENTS.md=inside", "NOTES.md=notes"])
      rmSync(join(project, "NOTES.md"))
      rmSync(join(project, "AGENTS.md"))
      symlinkSync(join(outside, "secret.md"), join(project, "AGENTS.md"))
      expect(yield* texts(reader, project, ["AGENTS.md", "NOTES.md"])).toEqual([])
    }),
  )

  it.effect("answers repeated reads of unchanged files from memory, in config order, and picks up a new file", () =>
    Effect.gen(function* () {
      const { project, reader } = setup()
      writeFileSync(join(project, "B.md"), "bee")
      const files = ["A.md", "B.md"]
      expect(yield* texts(reader, project, files)).toEqual(["B.md=bee"])
      writeFileSync(join(project, "A.md"), "ay")
      for (let i = 0; i < 3; i++) expect(yield* texts(reader, project, files)).toEqual(["A.md=ay", "B.md=bee"])
    }),
  )

  it.effect("skips a named pipe and a directory without waiting", () =>
    Effect.gen(function* () {
      const { project, reader } = setup()
      const made = Bun.spawnSync(["mkfifo", join(project, "AGENTS.md")])
      expect(made.exitCode).toBe(0)
      mkdirSync(join(project, "DIR.md"))
      writeFileSync(join(project, "NOTES.md"), "beside a pipe")
      expect(yield* texts(reader, project, ["AGENTS.md", "DIR.md", "NOTES.md"])).toEqual(["NOTES.md=beside a pipe"])
    }),
  )
})
