import { Effect, Schema } from "effect"
import { capDiff, unifiedDiff } from "./diff.ts"
import { fingerprint, readTextFile, refAhead, unchanged, writeRecorded } from "./files.ts"
import { confirmWritable, displayPath, resolveWritable } from "./path.ts"
import { PathOutsideDirectoryError, ToolError, type Tool, type ToolContext, type ToolPlan } from "./tool.ts"

export const EditInput = Schema.Struct({
  path: Schema.String.annotate({ description: "File to change, relative to the session directory." }),
  oldString: Schema.String.annotate({
    description:
      "Exact text to replace (whitespace matters). Must occur exactly once unless replaceAll is set. Empty creates a new file.",
  }),
  newString: Schema.String.annotate({ description: "The replacement text." }),
  replaceAll: Schema.optionalKey(Schema.Boolean.annotate({ description: "Replace every occurrence. Default false." })),
})
export type EditInput = typeof EditInput.Type

/** Non-overlapping occurrences of `needle` in `haystack`, counted up to `stop`. */
const count = (haystack: string, needle: string, stop: number) => {
  let n = 0
  let at = haystack.indexOf(needle)
  while (at !== -1 && n < stop) {
    n++
    at = haystack.indexOf(needle, at + needle.length)
  }
  return n
}

const fail = (message: string) => new ToolError({ tool: "edit", message })

/** The text after the edit, or the error the model can act on. */
export const applyEdit = (shown: string, before: string | undefined, input: EditInput): string | ToolError => {
  if (input.oldString === input.newString) return fail("oldString and newString are identical; nothing would change")
  if (input.oldString === "") {
    if (before === undefined || before === "") return input.newString
    return fail(
      `oldString is empty but "${shown}" already has content; give the text to replace, or use the write tool`,
    )
  }
  if (before === undefined) return fail(`file "${shown}" not found`)
  const found = count(before, input.oldString, input.replaceAll ? Number.MAX_SAFE_INTEGER : 2)
  if (found === 0)
    return fail(`oldString not found in "${shown}"; read the file and copy the text exactly (whitespace included)`)
  if (found > 1 && !input.replaceAll) {
    const total = count(before, input.oldString, Number.MAX_SAFE_INTEGER)
    return fail(
      `oldString found ${total} times in "${shown}"; include more surrounding lines to make it unique, or set replaceAll to change every occurrence`,
    )
  }
  if (input.replaceAll) return before.split(input.oldString).join(input.newString)
  const at = before.indexOf(input.oldString)
  return before.slice(0, at) + input.newString + before.slice(at + input.oldString.length)
}

const plan = (input: EditInput, ctx: ToolContext): Effect.Effect<ToolPlan, ToolError | PathOutsideDirectoryError> =>
  Effect.gen(function* () {
    const { root, path } = yield* resolveWritable("edit", ctx.directory, input.path)
    const shown = displayPath(root, path)
    const read = () =>
      Effect.tryPromise({
        try: () => readTextFile("edit", path, shown),
        catch: (error) => (error instanceof ToolError ? error : fail(`cannot read "${shown}": ${String(error)}`)),
      })
    const print = yield* Effect.tryPromise({
      try: () => fingerprint(path),
      catch: (error) => fail(`cannot read "${shown}": ${String(error)}`),
    })
    const before = yield* read()
    const after = applyEdit(shown, before, input)
    if (after instanceof ToolError) return yield* after
    const ahead = refAhead(ctx.images, after)
    const diff = capDiff(unifiedDiff(shown, before, after))
    return {
      permission: "edit",
      patterns: [shown],
      title: `edit ${shown}`,
      metadata: { diff },
      run: () =>
        Effect.gen(function* () {
          // Any component may have been swapped while the call waited: confine it again before touching it.
          yield* confirmWritable("edit", ctx.directory, input.path, { path, shown })
          // The file must still be what the diff was computed (and perhaps approved) against.
          const same = yield* Effect.tryPromise({
            try: () => unchanged("edit", path, shown, print, before),
            catch: (error) => (error instanceof ToolError ? error : fail(`cannot read "${shown}": ${String(error)}`)),
          })
          if (!same) {
            return yield* fail(`file "${shown}" changed since it was read; read it again and redo the edit`)
          }
          const files = yield* Effect.tryPromise({
            try: () =>
              writeRecorded("edit", root, ctx.images, [
                { path, requested: input.path, shown, after, before, print, ...ahead },
              ]),
            catch: (error) =>
              error instanceof ToolError || error instanceof PathOutsideDirectoryError ? error : fail(String(error)),
          })
          const replaced = input.replaceAll ? count(before ?? "", input.oldString, Number.MAX_SAFE_INTEGER) : 1
          const what =
            before === undefined
              ? `created "${shown}"`
              : `edited "${shown}" (${replaced} replacement${replaced === 1 ? "" : "s"})`
          return { output: what, metadata: files ? { diff, files } : { diff } }
        }),
    } satisfies ToolPlan
  })

/** Replaces exact text in a file inside the session directory; records the diff. */
export const edit: Tool<EditInput> = {
  name: "edit",
  description: [
    "Replace exact text in a file inside the session directory. oldString must match the file exactly",
    "(including whitespace and indentation) and occur exactly once, unless replaceAll is true. Read the file",
    "first. An empty oldString creates a new file with newString. Fails, changing nothing, when oldString is",
    "not found or is not unique.",
  ].join(" "),
  input: EditInput,
  plan,
  execute: (input, ctx) => Effect.flatMap(plan(input, ctx), (p) => Effect.map(p.run(), (r) => r.output)),
}
