import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { grep, GREP_MAX_MATCHES } from "../src/tool/grep.ts"
import { list, LIST_MAX_ENTRIES } from "../src/tool/list.ts"
import { read, READ_MAX_BYTES, READ_MAX_LINE_CHARS, READ_MAX_LINES } from "../src/tool/read.ts"
import { PathOutsideDirectoryError, ToolError, type Tool, type ToolContext } from "../src/tool/tool.ts"

let base: string
let session: string
let ctx: ToolContext

const run = <I>(tool: Tool<I>, input: I, context: ToolContext = ctx) => tool.execute(input, context)
const runError = <I>(tool: Tool<I>, input: I, context: ToolContext = ctx) => Effect.flip(tool.execute(input, context))

const write = async (rel: string, content: string | Uint8Array) => {
  const full = nodePath.join(session, rel)
  await fs.mkdir(nodePath.dirname(full), { recursive: true })
  await fs.writeFile(full, content)
}

beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-rlg-")))
  session = nodePath.join(base, "session")
  await fs.mkdir(session)
  ctx = { sessionID: "ses_test", directory: session, signal: new AbortController().signal }

  const numbered = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"
  await write("numbered.txt", numbered)
  await write("crlf.txt", "one\r\ntwo\r\n")
  await write("empty.txt", "")
  await write("long.txt", "x".repeat(5000) + "\nshort\n")
  await write("image.bin", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]))
  await write("src/main.ts", "export const answer = 42\n// TODO: more\n")
  await write("src/util.ts", "export function todo() {}\n")
  await write("src/readme.md", "TODO in markdown\n")
  await write("src/nested/deeper/leaf.ts", "const TODO_LEAF = 1\n")
  await write("src/data.bin", new Uint8Array([0x54, 0x4f, 0x44, 0x4f, 0x00, 0x0a]))
  await write("node_modules/pkg/index.ts", "TODO in node_modules\n")
  await write(".git/HEAD", "TODO in git\n")
  await write("many/matches.txt", Array.from({ length: GREP_MAX_MATCHES + 50 }, (_, i) => `hit ${i}`).join("\n"))

  // A FIFO: opening it for reading would block until a writer appears, so the tools must never open it.
  execFileSync("mkfifo", [nodePath.join(session, "many", "pipe.fifo")])

  await fs.mkdir(nodePath.join(base, "outside"))
  await fs.writeFile(nodePath.join(base, "outside", "secret.ts"), "TODO secret outside\n")
  await fs.symlink(nodePath.join(base, "outside"), nodePath.join(session, "src", "escape-dir"))
  await fs.symlink(nodePath.join(base, "outside", "secret.ts"), nodePath.join(session, "src", "escape-file.ts"))
})

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true })
})

describe("read", () => {
  it.effect("returns the file with line numbers", () =>
    Effect.gen(function* () {
      const out = yield* run(read, { path: "src/main.ts" })
      expect(out).toBe("   1| export const answer = 42\n   2| // TODO: more")
    }),
  )

  it.effect("offset and limit select a range and say how to continue", () =>
    Effect.gen(function* () {
      const out = yield* run(read, { path: "numbered.txt", offset: 12, limit: 3 })
      const lines = out.split("\n")
      expect(lines.slice(0, 3)).toEqual(["  12| line 12", "  13| line 13", "  14| line 14"])
      expect(out).toContain("offset=15")
      const tail = yield* run(read, { path: "numbered.txt", offset: 29 })
      expect(tail).toBe("  29| line 29\n  30| line 30")
    }),
  )

  it.effect("offset past the end is a ToolError", () =>
    Effect.gen(function* () {
      const error = yield* runError(read, { path: "numbered.txt", offset: 31 })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("30 lines")
    }),
  )

  it.effect("strips CRLF, reports empty files and truncates long lines", () =>
    Effect.gen(function* () {
      expect(yield* run(read, { path: "crlf.txt" })).toBe("   1| one\n   2| two")
      expect(yield* run(read, { path: "empty.txt" })).toContain("empty")
      const long = yield* run(read, { path: "long.txt" })
      const [first, second] = long.split("\n")
      expect(first).toBe(`   1| ${"x".repeat(READ_MAX_LINE_CHARS)}… (line truncated: 5000 characters)`)
      expect(second).toBe("   2| short")
    }),
  )

  it.effect("caps the output at the line limit and the byte limit", () =>
    Effect.gen(function* () {
      yield* Effect.promise(() =>
        write(
          "huge.txt",
          Array.from({ length: READ_MAX_LINES + 10 }, (_, i) => `${i + 1} ${"y".repeat(300)}`).join("\n"),
        ),
      )
      const out = yield* run(read, { path: "huge.txt" })
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(READ_MAX_BYTES + 200)
      const shown = out.split("\n").filter((l) => /^\s*\d+\| /.test(l))
      expect(shown.length).toBeLessThan(READ_MAX_LINES)
      expect(out).toContain(`offset=${shown.length + 1}`)
      expect(out).toContain("KiB")

      const lines = Array.from({ length: READ_MAX_LINES + 10 }, (_, i) => `${i + 1}`).join("\n")
      yield* Effect.promise(() => write("many-lines.txt", lines))
      const byLines = yield* run(read, { path: "many-lines.txt" })
      expect(byLines.split("\n").filter((l) => /^\s*\d+\| /.test(l))).toHaveLength(READ_MAX_LINES)
      expect(byLines).toContain(`offset=${READ_MAX_LINES + 1}`)
      const rest = yield* run(read, { path: "many-lines.txt", offset: READ_MAX_LINES + 1 })
      expect(rest.split("\n")).toHaveLength(10)
      yield* Effect.promise(() => fs.rm(nodePath.join(session, "huge.txt")))
      yield* Effect.promise(() => fs.rm(nodePath.join(session, "many-lines.txt")))
    }),
  )

  it.effect("refuses binary files and directories", () =>
    Effect.gen(function* () {
      const binary = yield* runError(read, { path: "image.bin" })
      expect(binary).toBeInstanceOf(ToolError)
      expect(binary.message).toContain("binary")
      const dir = yield* runError(read, { path: "src" })
      expect(dir).toBeInstanceOf(ToolError)
      expect(dir.message).toContain("directory")
    }),
  )

  it.effect("refuses a FIFO without blocking", () =>
    Effect.gen(function* () {
      const error = yield* runError(read, { path: "many/pipe.fifo" })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("not a regular file")
    }),
  )

  it.effect("a missing file is a ToolError 'not found'", () =>
    Effect.gen(function* () {
      const error = yield* runError(read, { path: "nope.txt" })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("not found")
    }),
  )
})

describe("list", () => {
  it.effect("depth 1 lists direct entries sorted, dirs with /, skipping .git and node_modules", () =>
    Effect.gen(function* () {
      const out = yield* run(list, {})
      expect(out.split("\n")).toEqual([
        "crlf.txt",
        "empty.txt",
        "image.bin",
        "long.txt",
        "many/",
        "numbered.txt",
        "src/",
      ])
    }),
  )

  it.effect("depth descends into subdirectories; symlinks are marked and not followed", () =>
    Effect.gen(function* () {
      const out = yield* run(list, { path: "src", depth: 2 })
      expect(out.split("\n")).toEqual([
        "src/data.bin",
        "src/escape-dir@",
        "src/escape-file.ts@",
        "src/main.ts",
        "src/nested/",
        "src/nested/deeper/",
        "src/readme.md",
        "src/util.ts",
        "",
        "(Entries ending in @ are symbolic links; they are not followed.)",
      ])
      const deeper = yield* run(list, { path: "src", depth: 3 })
      expect(deeper).toContain("src/nested/deeper/leaf.ts")
      expect(deeper).not.toContain("secret")
    }),
  )

  it.effect("an explicitly named skipped directory can still be listed", () =>
    Effect.gen(function* () {
      expect(yield* run(list, { path: "node_modules", depth: 2 })).toBe("node_modules/pkg/\nnode_modules/pkg/index.ts")
    }),
  )

  it.effect("caps the number of entries with a note", () =>
    Effect.gen(function* () {
      const dir = nodePath.join(session, "big")
      yield* Effect.promise(() => fs.mkdir(dir))
      yield* Effect.promise(() =>
        Promise.all(
          Array.from({ length: LIST_MAX_ENTRIES + 5 }, (_, i) =>
            fs.writeFile(nodePath.join(dir, `f${String(i).padStart(4, "0")}`), ""),
          ),
        ),
      )
      const lines = (yield* run(list, { path: "big" }).pipe(
        Effect.ensuring(Effect.promise(() => fs.rm(dir, { recursive: true }))),
      )).split("\n")
      expect(lines.filter((l) => l.startsWith("big/"))).toHaveLength(LIST_MAX_ENTRIES)
      expect(lines.at(-1)).toContain(`${LIST_MAX_ENTRIES} entries`)
    }),
  )

  it.effect("a file or a missing path is a ToolError; escaping is refused", () =>
    Effect.gen(function* () {
      expect(yield* runError(list, { path: "numbered.txt" })).toBeInstanceOf(ToolError)
      expect(yield* runError(list, { path: "missing" })).toBeInstanceOf(ToolError)
      expect(yield* runError(list, { path: ".." })).toBeInstanceOf(PathOutsideDirectoryError)
    }),
  )
})

describe("grep", () => {
  it.effect("reports path:line: text, skipping binary files, .git, node_modules and escaping symlinks", () =>
    Effect.gen(function* () {
      const out = yield* run(grep, { pattern: "TODO" })
      expect(out.split("\n")).toEqual([
        "src/main.ts:2: // TODO: more",
        "src/nested/deeper/leaf.ts:1: const TODO_LEAF = 1",
        "src/readme.md:1: TODO in markdown",
      ])
      expect(out).not.toContain("secret")
    }),
  )

  it.effect("include filters on the file name; a glob with / matches the relative path", () =>
    Effect.gen(function* () {
      expect(yield* run(grep, { pattern: "TODO", include: "*.md" })).toBe("src/readme.md:1: TODO in markdown")
      expect((yield* run(grep, { pattern: "[Tt][Oo][Dd][Oo]", include: "*.ts" })).split("\n")).toEqual([
        "src/main.ts:2: // TODO: more",
        "src/nested/deeper/leaf.ts:1: const TODO_LEAF = 1",
        "src/util.ts:1: export function todo() {}",
      ])
      expect(yield* run(grep, { pattern: "TODO", include: "*.{md,txt}" })).toBe("src/readme.md:1: TODO in markdown")
      expect(yield* run(grep, { pattern: "TODO", include: "src/*/**/*.ts" })).toBe(
        "src/nested/deeper/leaf.ts:1: const TODO_LEAF = 1",
      )
    }),
  )

  it.effect("path narrows the search to a directory or a single file", () =>
    Effect.gen(function* () {
      expect(yield* run(grep, { pattern: "TODO", path: "src/nested" })).toBe(
        "src/nested/deeper/leaf.ts:1: const TODO_LEAF = 1",
      )
      expect(yield* run(grep, { pattern: "answer", path: "src/main.ts" })).toBe(
        "src/main.ts:1: export const answer = 42",
      )
      expect(yield* run(grep, { pattern: "zzz-no-such-thing" })).toBe("No matches found.")
    }),
  )

  it.effect("never searches through a symlink that leaves the directory, even when named", () =>
    Effect.gen(function* () {
      expect(yield* runError(grep, { pattern: "TODO", path: "src/escape-dir" })).toBeInstanceOf(
        PathOutsideDirectoryError,
      )
      expect(yield* runError(grep, { pattern: "TODO", path: "src/escape-file.ts" })).toBeInstanceOf(
        PathOutsideDirectoryError,
      )
      expect(yield* run(grep, { pattern: "secret" })).toBe("No matches found.")
    }),
  )

  it.effect("caps the number of matches with a note", () =>
    Effect.gen(function* () {
      const out = yield* run(grep, { pattern: "^hit \\d+$", path: "many" })
      const lines = out.split("\n")
      expect(lines.filter((l) => l.startsWith("many/matches.txt:"))).toHaveLength(GREP_MAX_MATCHES)
      expect(lines.at(-1)).toContain(`first ${GREP_MAX_MATCHES} matches`)
    }),
  )

  it.effect("skips a FIFO while walking and refuses one named explicitly", () =>
    Effect.gen(function* () {
      expect(yield* run(grep, { pattern: "zzz", path: "many" })).toBe("No matches found.")
      const error = yield* runError(grep, { pattern: "x", path: "many/pipe.fifo" })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("not a regular file")
    }),
  )

  it.effect("an invalid regex is a ToolError", () =>
    Effect.gen(function* () {
      const error = yield* runError(grep, { pattern: "(unclosed" })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("invalid regular expression")
    }),
  )
})
