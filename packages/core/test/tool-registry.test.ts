import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { afterAll, beforeAll } from "vitest"
import { list } from "../src/tool/list.ts"
import { read } from "../src/tool/read.ts"
import { builtinTools, runTool, toModelTool } from "../src/tool/registry.ts"
import { PathOutsideDirectoryError, ToolError, type Tool, type ToolContext } from "../src/tool/tool.ts"

let session: string
let ctx: ToolContext

beforeAll(async () => {
  session = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), "tool-registry-")))
  await fs.writeFile(nodePath.join(session, "a.txt"), "alpha\nbeta\n")
  ctx = { sessionID: "ses_test", directory: session, signal: new AbortController().signal }
})

afterAll(async () => {
  await fs.rm(session, { recursive: true, force: true })
})

const runError = (tool: Tool, input: unknown) => Effect.flip(runTool(tool, input, ctx))

describe("builtinTools", () => {
  it("bash on by default (behind permissions), removed by tools.bash: false", () => {
    expect(builtinTools({ bash: false }).map((t) => t.name)).toEqual([
      "read",
      "list",
      "grep",
      "glob",
      "edit",
      "write",
      "patch",
      "webfetch",
    ])
    expect(builtinTools().map((t) => t.name)).toEqual([
      "read",
      "list",
      "grep",
      "glob",
      "edit",
      "write",
      "patch",
      "bash",
      "webfetch",
    ])
  })
})

describe("toModelTool", () => {
  it("every built-in tool gets a self-contained object schema with its properties", () => {
    for (const tool of builtinTools({ bash: true })) {
      const model = toModelTool(tool)
      expect(model.name).toBe(tool.name)
      expect(model.description.length).toBeGreaterThan(20)
      expect(model.parameters.type).toBe("object")
      expect(Object.keys(model.parameters.properties).length).toBeGreaterThan(0)
      expect(JSON.stringify(model.parameters)).not.toContain("$ref")
      expect(model.parameters).not.toHaveProperty("$defs")
      // Round-trips through JSON (what is sent to a provider).
      expect(JSON.parse(JSON.stringify(model.parameters))).toEqual(model.parameters)
    }
  })

  it("read: properties, descriptions, constraints and required", () => {
    const { parameters } = toModelTool(read)
    expect(Object.keys(parameters.properties).sort()).toEqual(["limit", "offset", "path"])
    expect(parameters.required).toEqual(["path"])
    const props = parameters.properties as Record<string, Record<string, unknown>>
    expect(props["path"]).toMatchObject({ type: "string" })
    expect(typeof props["path"]!["description"]).toBe("string")
    expect(props["limit"]).toMatchObject({ type: "integer", minimum: 1, maximum: 2000 })
    expect(props["offset"]).toMatchObject({ type: "integer", minimum: 1 })
  })

  it("list has no required fields", () => {
    expect(toModelTool(list).parameters.required).toEqual([])
  })

  it("definitions are inlined", () => {
    const Point = Schema.Struct({ x: Schema.Int, y: Schema.Int }).annotate({ identifier: "Point" })
    const Input = Schema.Struct({ from: Point, to: Point, label: Schema.optionalKey(Schema.String) }).annotate({
      identifier: "SegmentInput",
    })
    const tool: Tool<typeof Input.Type> = {
      name: "segment",
      description: "test tool",
      input: Input,
      execute: (input) => Effect.succeed(`${input.from.x},${input.to.y}`),
    }
    const { parameters } = toModelTool(tool)
    expect(parameters.type).toBe("object")
    expect(parameters.required).toEqual(["from", "to"])
    const props = parameters.properties as Record<string, Record<string, unknown>>
    expect(props["from"]).toMatchObject({
      type: "object",
      properties: { x: { type: "integer" }, y: { type: "integer" } },
    })
    expect(JSON.stringify(parameters)).not.toContain("$ref")
  })
})

describe("runTool", () => {
  it.effect("decodes and executes", () =>
    Effect.gen(function* () {
      expect(yield* runTool(read, { path: "a.txt", limit: 1 }, ctx)).toContain("   1| alpha")
    }),
  )

  it.effect("accepts a JSON string and null for optional parameters", () =>
    Effect.gen(function* () {
      expect(yield* runTool(read, '{"path":"a.txt"}', ctx)).toBe("   1| alpha\n   2| beta")
      expect(yield* runTool(read, { path: "a.txt", offset: null, limit: null }, ctx)).toBe("   1| alpha\n   2| beta")
    }),
  )

  it.effect("a decode failure is a ToolError naming the field", () =>
    Effect.gen(function* () {
      const missing = yield* runError(read, {})
      expect(missing).toBeInstanceOf(ToolError)
      expect(missing.message).toBe('invalid input for tool "read": path: Missing key')

      const wrongType = yield* runError(read, { path: 42 })
      expect(wrongType.message).toContain("path: Expected string")

      const several = yield* runError(read, { path: "a.txt", offset: 0, limit: 5000 })
      expect(several.message).toContain("offset:")
      expect(several.message).toContain("limit:")
      expect(several.message).toContain("2000")

      const fraction = yield* runError(list, { depth: 1.5 })
      expect(fraction.message).toContain("depth:")

      const notObject = yield* runError(read, [1, 2])
      expect(notObject).toBeInstanceOf(ToolError)
      expect(notObject.message).toContain("input:")

      expect((yield* runError(read, "{not json")).message).toContain("not valid JSON")
    }),
  )

  it.effect("tool errors pass through unchanged", () =>
    Effect.gen(function* () {
      expect(yield* runError(read, { path: "../etc/passwd" })).toBeInstanceOf(PathOutsideDirectoryError)
      expect(yield* runError(read, { path: "nope" })).toBeInstanceOf(ToolError)
    }),
  )

  it.effect("a defect in a tool becomes a ToolError", () =>
    Effect.gen(function* () {
      const broken: Tool<{ readonly x: string }> = {
        name: "broken",
        description: "always dies",
        input: Schema.Struct({ x: Schema.String }),
        execute: () => Effect.die(new Error("boom")),
      }
      const error = yield* runError(broken, { x: "y" })
      expect(error).toBeInstanceOf(ToolError)
      expect(error.message).toContain("boom")
    }),
  )
})
