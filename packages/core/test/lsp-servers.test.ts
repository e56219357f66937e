import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { afterAll } from "vitest"
import { Config, type ConfigData } from "../src/config/config.ts"
import { Formatters } from "../src/format/format.ts"
import type { DiagnosticsOutcome } from "../src/lsp/diagnostic.ts"
import { Lsp } from "../src/lsp/lsp.ts"
import { builtinTools } from "../src/tool/registry.ts"
import type { ToolContext, ToolResult } from "../src/tool/tool.ts"
import { tempDir } from "./support/tmp.ts"

/**
 * Language servers and formatters after edits, with real servers: typescript-language-server from the
 * `lsp-ts` fixture's devDependencies, prettier from the root's, and a tiny script server of our own for
 * crashes and silence.
 */

const fixture = join(import.meta.dirname, "fixtures/lsp-ts")
const scriptServer = join(import.meta.dirname, "fixtures/lsp-script/server.ts")
const hostChild = join(import.meta.dirname, "fixtures/lsp-script/host-child.ts")

// Work directories sit inside the fixture, so its node_modules/.bin (the server) and tsconfig are found.
const made: Array<string> = []
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})
const workDir = () => {
  const dir = mkdtempSync(join(fixture, "work-"))
  made.push(dir)
  return dir
}

const layer = (directory: string, data: ConfigData) =>
  Layer.mergeAll(Lsp.layer, Formatters.layer).pipe(Layer.provide(Config.layer({ data, directory })))

/** Runs edit/write (planned and applied, as a permitted call is) with diagnostics after it. */
const apply = (tool: "write" | "edit" | "lsp", input: Record<string, unknown>, directory: string, timeout = 60_000) =>
  Effect.gen(function* () {
    const lsp = yield* Lsp
    const formatters = yield* Formatters
    const tools = builtinTools({ afterEdit: { lsp, formatters, timeout, warnings: 10 } })
    const found = tools.find((t) => t.name === tool)!
    const ctx: ToolContext = { sessionID: "ses_lsp", directory, signal: new AbortController().signal }
    if (!found.plan) return { output: yield* found.execute(input, ctx) } as ToolResult
    const plan = yield* found.plan(input, ctx)
    return yield* plan.run()
  })

const diagnosticsOf = (result: ToolResult) =>
  (result.metadata?.["diagnostics"] ?? []) as ReadonlyArray<DiagnosticsOutcome>

describe("typescript-language-server after edits", () => {
  const directory = workDir()
  it.live("an edit introducing a type error returns the error with its line; the fix returns none", () =>
    Effect.gen(function* () {
      const broken = yield* apply(
        "write",
        { path: "a.ts", content: 'export const answer = 42\nexport const label: number = "forty-two"\n' },
        directory,
      )
      expect(broken.output).toMatch(/a\.ts:2:14 error TS2322: Type 'string' is not assignable to type 'number'/)
      const [outcome] = diagnosticsOf(broken)
      expect(outcome).toMatchObject({ path: "a.ts", server: "typescript" })
      expect(outcome!.diagnostics.map((d) => [d.line, d.severity, d.code])).toEqual([[2, "error", "2322"]])

      const fixed = yield* apply(
        "edit",
        { path: "a.ts", oldString: 'label: number = "forty-two"', newString: "label: number = 42" },
        directory,
      )
      expect(fixed.output).not.toMatch(/error/)
      expect(diagnosticsOf(fixed)[0]!.diagnostics).toEqual([])
    }).pipe(Effect.provide(layer(directory, {}))),
  )

  it.live("hover and definition answer through the lsp tool", () =>
    Effect.gen(function* () {
      writeFileSync(join(directory, "lib.ts"), "export function double(n: number): number {\n  return n * 2\n}\n")
      writeFileSync(join(directory, "use.ts"), 'import { double } from "./lib"\nexport const four = double(2)\n')
      const hover = yield* apply("lsp", { operation: "hover", path: "lib.ts", line: 1, column: 17 }, directory)
      expect(hover.output).toContain("function double(n: number): number")
      const definition = yield* apply(
        "lsp",
        { operation: "definition", path: "use.ts", line: 2, column: 21 },
        directory,
      )
      expect(definition.output).toBe("lib.ts:1:17")
      const symbols = yield* apply("lsp", { operation: "documentSymbol", path: "lib.ts" }, directory)
      expect(symbols.output).toContain("function double 1:17")
    }).pipe(Effect.provide(layer(directory, {}))),
  )

  it.live("a path outside the session directory is refused", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.result(
        apply("lsp", { operation: "hover", path: "../x.ts", line: 1, column: 1 }, directory),
      )
      expect(refused._tag).toBe("Failure")
    }).pipe(Effect.provide(layer(directory, {}))),
  )
})

describe("servers that crash or never answer", () => {
  const script = (mode: string): ConfigData => ({
    lsp: {
      typescript: { disabled: true },
      script: { command: [process.execPath, scriptServer, mode], extensions: [".txt"] },
    },
  })

  it.live("a server that exits is noted on the edit, isolated, and restarted on the next one", () => {
    const directory = tempDir("oc2-lsp-")
    return Effect.gen(function* () {
      const first = yield* apply("write", { path: "a.txt", content: "fine\nBAD here\n" }, directory)
      expect(diagnosticsOf(first)[0]!.diagnostics.map((d) => [d.line, d.column])).toEqual([[2, 1]])
      const pid = (yield* (yield* Lsp).status()).find((s) => s.name === "script")!.pid

      const crashed = yield* apply("write", { path: "a.txt", content: "CRASH\n" }, directory)
      expect(crashed.output).toContain("Diagnostics of a.txt: script exited (code 3)")
      expect((yield* (yield* Lsp).status()).find((s) => s.name === "script")!.status).toBe("crashed")

      const again = yield* apply("write", { path: "a.txt", content: "BAD again\n" }, directory)
      expect(diagnosticsOf(again)[0]!.diagnostics).toHaveLength(1)
      const status = (yield* (yield* Lsp).status()).find((s) => s.name === "script")!
      expect(status).toMatchObject({ status: "running", restarts: 1 })
      expect(status.pid).not.toBe(pid)
    }).pipe(Effect.provide(layer(directory, script("crash"))))
  })

  it.live("a server that never publishes is bounded: the edit returns with a note", () => {
    const directory = tempDir("oc2-lsp-")
    return Effect.gen(function* () {
      // The first edit may find the server still starting; either way it returns within the bound.
      const first = yield* apply("write", { path: "a.txt", content: "first\n" }, directory, 300)
      expect(first.output).toMatch(/Diagnostics of a\.txt: script (is still starting|did not report)/)
      const lsp = yield* Lsp
      while ((yield* lsp.status()).find((s) => s.name === "script")?.status !== "running")
        yield* Effect.sleep("20 millis")
      const result = yield* apply("write", { path: "a.txt", content: "BAD\n" }, directory, 300)
      expect(result.output).toContain("wrote")
      expect(result.output).toContain("script did not report diagnostics within 300 ms")
      expect(readFileSync(join(directory, "a.txt"), "utf8")).toBe("BAD\n")
    }).pipe(Effect.provide(layer(directory, script("hang"))))
  })
})

describe("formatters", () => {
  it.live("prettier formats an edited file in a project with .prettierrc, and the model is told", () => {
    const directory = tempDir("oc2-fmt-")
    writeFileSync(join(directory, ".prettierrc"), JSON.stringify({ semi: false }))
    return Effect.gen(function* () {
      const result = yield* apply("write", { path: "b.ts", content: "const  x  =  { a:1 };\n" }, directory)
      expect(readFileSync(join(directory, "b.ts"), "utf8")).toBe("const x = { a: 1 }\n")
      expect(result.output).toContain("b.ts was reformatted by prettier")
      expect(result.metadata?.["format"]).toEqual([{ path: "b.ts", formatter: "prettier", changed: true }])
    }).pipe(Effect.provide(layer(directory, { lsp: false })))
  })

  it.live("without a prettier config nothing is formatted", () => {
    const directory = tempDir("oc2-fmt-")
    return Effect.gen(function* () {
      const result = yield* apply("write", { path: "b.ts", content: "const  x  =  1\n" }, directory)
      expect(readFileSync(join(directory, "b.ts"), "utf8")).toBe("const  x  =  1\n")
      expect(result.metadata?.["format"]).toBeUndefined()
    }).pipe(Effect.provide(layer(directory, { lsp: false })))
  })

  it.live("a failing formatter never fails the edit: its error is noted", () => {
    const directory = tempDir("oc2-fmt-")
    const formatter = { broken: { command: [process.execPath, "-e", "process.exit(2)"], extensions: [".txt"] } }
    return Effect.gen(function* () {
      const result = yield* apply("write", { path: "c.txt", content: "text\n" }, directory)
      expect(readFileSync(join(directory, "c.txt"), "utf8")).toBe("text\n")
      expect(result.output).toContain("The formatter broken failed on c.txt (the edit is kept): exit 2")
    }).pipe(Effect.provide(layer(directory, { lsp: false, formatter })))
  })
})

describe("no orphans", () => {
  it("a host killed with SIGKILL leaves no language server behind", async () => {
    const directory = workDir()
    writeFileSync(join(directory, "a.ts"), "export const a = 1\n")
    const child = spawn(
      process.execPath,
      [hostChild, directory, join(directory, "a.ts"), join(tempDir(), "db.sqlite")],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    )
    const line = await new Promise<string>((resolveLine) =>
      createInterface({ input: child.stdout! }).once("line", resolveLine),
    )
    const pid = (JSON.parse(line) as { pid?: number }).pid
    expect(pid).toBeTypeOf("number")
    const alive = () => {
      try {
        process.kill(pid!, 0)
        return true
      } catch {
        return false
      }
    }
    expect(alive()).toBe(true)
    child.kill("SIGKILL")
    // The server notices its parent is gone (stdin closed, `processId` no longer alive) and exits.
    for (let i = 0; i < 300 && alive(); i++) await new Promise((r) => setTimeout(r, 100))
    expect(alive()).toBe(false)
  })
})
