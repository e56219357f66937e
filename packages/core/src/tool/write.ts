import { Effect, Schema } from "effect"
import { capDiff, unifiedDiff } from "./diff.ts"
import { fingerprint, readTextFile, refAhead, unchanged, writeRecorded } from "./files.ts"
import { confirmWritable, displayPath, resolveWritable } from "./path.ts"
import { PathOutsideDirectoryError, ToolError, type Tool, type ToolContext, type ToolPlan } from "./tool.ts"

export const WriteInput = Schema.Struct({
  path: Schema.String.annotate({ description: "File to create or overwrite, relative to the session directory." }),
  content: Schema.String.annotate({ description: "The complete new content of the file." }),
})
export type WriteInput = typeof WriteInput.Type

const fail = (message: string) => new ToolError({ tool: "write", message })

const plan = (input: WriteInput, ctx: ToolContext): Effect.Effect<ToolPlan, ToolError | PathOutsideDirectoryError> =>
  Effect.gen(function* () {
    const { root, path } = yield* resolveWritable("write", ctx.directory, input.path)
    const shown = displayPath(root, path)
    const read = () =>
      Effect.tryPromise({
        try: () => readTextFile("write", path, shown),
        catch: (error) => (error instanceof ToolError ? error : fail(`cannot read "${shown}": ${String(error)}`)),
      })
    const print = yield* Effect.tryPromise({
      try: () => fingerprint(path),
      catch: (error) => fail(`cannot read "${shown}": ${String(error)}`),
    })
    const before = yield* read()
    const ahead = refAhead(ctx.images, input.content)
    const diff = capDiff(unifiedDiff(shown, before, input.content))
    return {
      permission: "edit",
      patterns: [shown],
      title: `write ${shown}`,
      metadata: { diff },
      run: () =>
        Effect.gen(function* () {
          // Any component may have been swapped while the call waited: confine it again before touching it.
          yield* confirmWritable("write", ctx.directory, input.path, { path, shown })
          const same = yield* Effect.tryPromise({
            try: () => unchanged("write", path, shown, print, before),
            catch: (error) => (error instanceof ToolError ? error : fail(`cannot read "${shown}": ${String(error)}`)),
          })
          if (!same)
            return yield* fail(`file "${shown}" changed since it was read; read it again before overwriting it`)
          const files = yield* Effect.tryPromise({
            try: () =>
              writeRecorded("write", root, ctx.images, [
                { path, requested: input.path, shown, after: input.content, before, print, ...ahead },
              ]),
            catch: (error) =>
              error instanceof ToolError || error instanceof PathOutsideDirectoryError ? error : fail(String(error)),
          })
          const bytes = Buffer.byteLength(input.content, "utf8")
          return {
            output: `${before === undefined ? "created" : "wrote"} "${shown}" (${bytes} bytes)`,
            metadata: files ? { diff, files } : { diff },
          }
        }),
    } satisfies ToolPlan
  })

/** Creates or overwrites a file inside the session directory; records the diff. */
export const write: Tool<WriteInput> = {
  name: "write",
  description:
    "Create a file, or replace a file's whole content, inside the session directory (missing parent directories are created). Prefer edit for changing part of an existing file.",
  input: WriteInput,
  plan,
  execute: (input, ctx) => Effect.flatMap(plan(input, ctx), (p) => Effect.map(p.run(), (r) => r.output)),
}
