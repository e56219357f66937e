import { Effect, Schema } from "effect"
import { capDiff, unifiedDiff } from "./diff.ts"
import { fingerprint, readTextFile, type RecordedChange, refAhead, unchanged, writeRecorded } from "./files.ts"
import { confirmWritable, displayPath, resolveWritable, sessionRoot } from "./path.ts"
import { PathOutsideDirectoryError, ToolError, type Tool, type ToolContext, type ToolPlan } from "./tool.ts"

export const PatchInput = Schema.Struct({
  patch: Schema.String.annotate({
    description:
      "A git-style unified diff (`--- a/path`, `+++ b/path`, `@@ -l,n +l,n @@` hunks) over one or more files. `--- /dev/null` creates a file, `+++ /dev/null` deletes one.",
  }),
})
export type PatchInput = typeof PatchInput.Type

/** Marks an unterminated last line (as in diff.ts), so end-of-file newlines are matched exactly. */
const NO_EOL = "\u0000no-eol"

interface Hunk {
  readonly oldStart: number
  readonly oldCount: number
  readonly old: Array<string>
  readonly new: Array<string>
}

interface FilePatch {
  /** `undefined` for /dev/null. */
  readonly from: string | undefined
  readonly to: string | undefined
  readonly hunks: Array<Hunk>
}

const fail = (message: string) => new ToolError({ tool: "patch", message })

const stripPath = (raw: string): string | undefined => {
  const path = raw.split("\t")[0]!.trim()
  if (path === "/dev/null") return undefined
  return /^[ab]\//.test(path) ? path.slice(2) : path
}

/** Parses a unified diff into file patches; throws a ToolError naming the offending line. */
export const parsePatch = (text: string): Array<FilePatch> => {
  const lines = text.replace(/\r\n/g, "\n").split("\n")
  if (lines.at(-1) === "") lines.pop()
  const files: Array<FilePatch> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (!line.startsWith("--- ")) {
      // Headers git writes around a file diff (diff --git, index, mode lines) and any prose are skipped.
      i++
      continue
    }
    const next = lines[i + 1]
    if (next === undefined || !next.startsWith("+++ "))
      throw fail(`patch line ${i + 2}: expected "+++ <path>" after "${line}"`)
    const file: FilePatch = { from: stripPath(line.slice(4)), to: stripPath(next.slice(4)), hunks: [] }
    if (file.from === undefined && file.to === undefined) throw fail(`patch line ${i + 1}: both sides are /dev/null`)
    i += 2
    while (i < lines.length && lines[i]!.startsWith("@@")) {
      const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(lines[i]!)
      if (!header) throw fail(`patch line ${i + 1}: malformed hunk header "${lines[i]}"`)
      const oldCount = header[2] === undefined ? 1 : Number(header[2])
      const newCount = header[4] === undefined ? 1 : Number(header[4])
      const hunk: Hunk = { oldStart: Number(header[1]), oldCount, old: [], new: [] }
      i++
      while (
        i < lines.length &&
        (hunk.old.length < oldCount || hunk.new.length < newCount || lines[i]!.startsWith("\\"))
      ) {
        const body = lines[i]!
        const kind = body[0]
        const content = body.slice(1)
        if (kind === "\\") {
          // "\ No newline at end of file" applies to the line above it.
          const above = lines[i - 1]?.[0]
          if (above === "-" || above === " ") hunk.old[hunk.old.length - 1] += NO_EOL
          if (above === "+" || above === " ") hunk.new[hunk.new.length - 1] += NO_EOL
        } else if (kind === " " || body === "") {
          hunk.old.push(content)
          hunk.new.push(content)
        } else if (kind === "-") hunk.old.push(content)
        else if (kind === "+") hunk.new.push(content)
        else
          throw fail(
            `patch line ${i + 1}: unexpected "${body.slice(0, 40)}" inside a hunk (lines must start with " ", "-" or "+")`,
          )
        i++
      }
      if (hunk.old.length !== oldCount || hunk.new.length !== newCount) {
        throw fail(
          `patch: hunk ${file.hunks.length + 1} of "${file.to ?? file.from}" has ${hunk.old.length}/${hunk.new.length} lines, its header says ${oldCount}/${newCount}`,
        )
      }
      file.hunks.push(hunk)
    }
    if (file.hunks.length === 0) throw fail(`patch: "${file.to ?? file.from}" has no hunks`)
    files.push(file)
  }
  if (files.length === 0)
    throw fail('patch: no file changes found (expected "--- a/path", "+++ b/path" and "@@" hunks)')
  return files
}

const toLines = (text: string): Array<string> => {
  if (text === "") return []
  if (text.endsWith("\n")) return text.slice(0, -1).split("\n")
  const lines = text.split("\n")
  lines[lines.length - 1] += NO_EOL
  return lines
}

const fromLines = (lines: ReadonlyArray<string>): string => {
  if (lines.length === 0) return ""
  const last = lines[lines.length - 1]!
  if (last.endsWith(NO_EOL)) return [...lines.slice(0, -1), last.slice(0, -NO_EOL.length)].join("\n")
  return lines.join("\n") + "\n"
}

const matchesAt = (lines: ReadonlyArray<string>, at: number, expected: ReadonlyArray<string>) => {
  if (at < 0 || at + expected.length > lines.length) return false
  for (let j = 0; j < expected.length; j++) if (lines[at + j] !== expected[j]) return false
  return true
}

/**
 * Applies one file's hunks in order. A hunk is looked for at its stated line (shifted by the hunks before
 * it), then at the nearest offset either way, never overlapping an earlier hunk. Returns the new text or
 * the error naming the file and the hunk.
 */
export const applyHunks = (shown: string, before: string, hunks: ReadonlyArray<Hunk>): string | ToolError => {
  const lines = toLines(before)
  const out: Array<string> = []
  let cursor = 0 // first line of `lines` not yet copied
  let shift = 0
  for (const [index, hunk] of hunks.entries()) {
    const expected = (hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1) + shift
    let found = -1
    for (let delta = 0; found === -1 && (expected - delta >= cursor || expected + delta <= lines.length); delta++) {
      if (expected + delta >= cursor && matchesAt(lines, expected + delta, hunk.old)) found = expected + delta
      else if (delta > 0 && expected - delta >= cursor && matchesAt(lines, expected - delta, hunk.old))
        found = expected - delta
    }
    if (found === -1) {
      return fail(
        `patch: hunk ${index + 1} of "${shown}" does not apply: its ${hunk.old.length} context/removed line(s) (from line ${hunk.oldStart}) were not found; read the file and regenerate the patch. Nothing was changed.`,
      )
    }
    for (let j = cursor; j < found; j++) out.push(lines[j]!)
    out.push(...hunk.new)
    cursor = found + hunk.old.length
    // Later hunks are searched in the original lines too, shifted by how far this one moved.
    shift = found - (expected - shift)
  }
  for (let j = cursor; j < lines.length; j++) out.push(lines[j]!)
  // A line that lost its end-of-file status (content added after it) gets its newline back.
  for (let j = 0; j < out.length - 1; j++) if (out[j]!.endsWith(NO_EOL)) out[j] = out[j]!.slice(0, -NO_EOL.length)
  return fromLines(out)
}

interface Target {
  readonly path: string
  /** The path as the patch first spelled it (re-confined with it when the patch is applied). */
  readonly requested: string
  readonly shown: string
  readonly before: string | undefined
  readonly print: string
  after: string | undefined
}

const plan = (input: PatchInput, ctx: ToolContext): Effect.Effect<ToolPlan, ToolError | PathOutsideDirectoryError> =>
  Effect.gen(function* () {
    const files = yield* Effect.try({
      try: () => parsePatch(input.patch),
      catch: (error) => (error instanceof ToolError ? error : fail(String(error))),
    })
    const targets = new Map<string, Target>()
    const root = yield* sessionRoot("patch", ctx.directory)
    const load = (requested: string) =>
      Effect.gen(function* () {
        const { path } = yield* resolveWritable("patch", ctx.directory, requested)
        const existing = targets.get(path)
        if (existing) return existing
        const shown = displayPath(root, path)
        const print = yield* Effect.tryPromise({
          try: () => fingerprint(path),
          catch: (error) => fail(`cannot read "${shown}": ${String(error)}`),
        })
        const before = yield* Effect.tryPromise({
          try: () => readTextFile("patch", path, shown),
          catch: (error) => (error instanceof ToolError ? error : fail(`cannot read "${shown}": ${String(error)}`)),
        })
        const target: Target = { path, requested, shown, before, print, after: before }
        targets.set(path, target)
        return target
      })
    // Every hunk of every file is checked here, before anything is written.
    for (const file of files) {
      const source = file.from !== undefined ? yield* load(file.from) : undefined
      const dest = file.to !== undefined ? yield* load(file.to) : undefined
      if (source === undefined) {
        if (dest!.after !== undefined)
          return yield* fail(`patch: "${dest!.shown}" already exists; it cannot be created (--- /dev/null)`)
        const created = applyHunks(dest!.shown, "", file.hunks)
        if (created instanceof ToolError) return yield* created
        dest!.after = created
        continue
      }
      if (source.after === undefined) return yield* fail(`patch: file "${source.shown}" not found`)
      const changed = applyHunks(source.shown, source.after, file.hunks)
      if (changed instanceof ToolError) return yield* changed
      if (dest === undefined) {
        if (changed !== "") {
          return yield* fail(
            `patch: deleting "${source.shown}" (+++ /dev/null) needs hunks that remove its whole content`,
          )
        }
        source.after = undefined
      } else if (dest === source) source.after = changed
      else {
        if (dest.after !== undefined)
          return yield* fail(`patch: cannot rename "${source.shown}" to "${dest.shown}": it exists`)
        source.after = undefined
        dest.after = changed
      }
    }
    const list = [...targets.values()].filter((t) => t.after !== t.before)
    const ahead = list.map((t) => refAhead(ctx.images, t.after))
    const diff = capDiff(list.map((t) => unifiedDiff(t.shown, t.before, t.after)).join(""))
    const shownList = list.map((t) => t.shown)
    return {
      permission: "edit",
      patterns: shownList,
      title: `patch ${shownList.join(", ")}`,
      metadata: { diff },
      run: () =>
        Effect.gen(function* () {
          // Every file is confined again before any is touched, so one now outside changes no file.
          for (const target of list) yield* confirmWritable("patch", ctx.directory, target.requested, target)
          for (const target of list) {
            const same = yield* Effect.tryPromise({
              try: () => unchanged("patch", target.path, target.shown, target.print, target.before),
              catch: (error) => (error instanceof ToolError ? error : fail(String(error))),
            })
            if (!same) {
              return yield* fail(
                `file "${target.shown}" changed since the patch was checked; nothing was changed, read it again`,
              )
            }
          }
          const changes: Array<RecordedChange> = list.map((t, index) => ({
            path: t.path,
            requested: t.requested,
            shown: t.shown,
            after: t.after,
            before: t.before,
            print: t.print,
            ...ahead[index],
          }))
          const files = yield* Effect.tryPromise({
            try: () => writeRecorded("patch", root, ctx.images, changes),
            catch: (error) =>
              error instanceof ToolError || error instanceof PathOutsideDirectoryError ? error : fail(String(error)),
          })
          const summary = list.map(
            (t) => `${t.before === undefined ? "created" : t.after === undefined ? "deleted" : "patched"} ${t.shown}`,
          )
          return {
            output: summary.length > 0 ? summary.join("\n") : "the patch changes nothing",
            metadata: files ? { diff, files } : { diff },
          }
        }),
    } satisfies ToolPlan
  })

/** Applies a unified diff over one or more files, all-or-nothing; records the resulting diff. */
export const patch: Tool<PatchInput> = {
  name: "patch",
  description: [
    "Apply a git-style unified diff to one or more files inside the session directory. All-or-nothing: every",
    "hunk of every file is checked first, and if any hunk does not apply (the error names the file and hunk)",
    "no file is changed. Hunks may be found a few lines away from their stated position.",
  ].join(" "),
  input: PatchInput,
  plan,
  execute: (input, ctx) => Effect.flatMap(plan(input, ctx), (p) => Effect.map(p.run(), (r) => r.output)),
}
