import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
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

const runError = (tool: Tool, input: unknown) => Effect.runPromise(Effect.flip(runTool(tool, input, ctx)))

describe("builtinTools", () => {
  test("bash on by default (behind permissions), removed by tools.bash: false", () => {
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
  test("every built-in tool gets a self-contained object schema with its properties", () => {
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

  test("read: properties, descriptions, constraints and required", () => {
    const { parameters } = toModelTool(read)
    expect(Object.keys(parameters.properties).sort()).toEqual(["limit", "offset", "path"])
    expect(parameters.required).toEqual(["path"])
    const props = parameters.properties as Record<string, Record<string, unknown>>
    expect(props["path"]).toMatchObject({ type: "string" })
    expect(typeof props["path"]!["description"]).toBe("string")
    expect(props["limit"]).toMatchObject({ type: "integer", minimum: 1, maximum: 2000 })
    expect(props["offset"]).toMatchObject({ type: "integer", minimum: 1 })
  })

  test("list has no required fields", () => {
    expect(toModelTool(list).parameters.required).toEqual([])
  })

  test("definitions are inlined", () => {
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
  test("decodes and executes", async () => {
    expect(await Effect.runPromise(runTool(read, { path: "a.txt", limit: 1 }, ctx))).toContain("   1| alpha")
  })

  test("accepts a JSON string and null for optional parameters", async () => {
    expect(await Effect.runPromise(runTool(read, '{"path":"a.txt"}', ctx))).toBe("   1| alpha\n   2| beta")
    expect(await Effect.runPromise(runTool(read, { path: "a.txt", offset: null, limit: null }, ctx))).toBe(
      "   1| alpha\n   2| beta",
    )
  })

  test("a decode failure is a ToolError naming the field", async () => {
    const missing = await runError(read, {})
    expect(missing).toBeInstanceOf(ToolError)
    expect(missing.message).toBe('invalid input for tool "read": path: Missing key')

    const wrongType = await runError(read, { path: 42 })
    expect(wrongType.message).toContain("path: Expected string")

    const several = await runError(read, { path: "a.txt", offset: 0, limit: 5000 })
    expect(several.message).toContain("offset:")
    expect(several.message).toContain("limit:")
    expect(several.message).toContain("2000")

    const fraction = await runError(list, { depth: 1.5 })
    expect(fraction.message).toContain("depth:")

    const notObject = await runError(read, [1, 2])
    expect(notObject).toBeInstanceOf(ToolError)
    expect(notObject.message).toContain("input:")

    expect((await runError(read, "{not json")).message).toContain("not valid JSON")
  })

  test("tool errors pass through unchanged", async () => {
    expect(await runError(read, { path: "../etc/passwd" })).toBeInstanceOf(PathOutsideDirectoryError)
    expect(await runError(read, { path: "nope" })).toBeInstanceOf(ToolError)
  })

  test("a defect in a tool becomes a ToolError", async () => {
    const broken: Tool<{ readonly x: string }> = {
      name: "broken",
      description: "always dies",
      input: Schema.Struct({ x: Schema.String }),
      execute: () => Effect.die(new Error("boom")),
    }
    const error = await runError(broken, { x: "y" })
    expect(error).toBeInstanceOf(ToolError)
    expect(error.message).toContain("boom")
  })
})
