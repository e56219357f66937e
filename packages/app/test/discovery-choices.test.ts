import { describe, expect, it } from "vitest"
import { parseAgents, parseDefaultModel, parseModels } from "../src/discovery.ts"

describe("agent and model choices from discovery", () => {
  it("reads agents from a list, a page or a map", () => {
    expect(parseAgents({ items: [{ id: "build" }, { id: "plan" }] })).toEqual(["build", "plan"])
    expect(parseAgents([{ name: "build" }, "plan"])).toEqual(["build", "plan"])
    expect(parseAgents({ agents: { build: {}, plan: { system: "x" } } })).toEqual(["build", "plan"])
  })

  it("reads models per provider as provider/model", () => {
    expect(
      parseModels({
        items: [
          { id: "local", models: [{ id: "qwen", limit: { context: 1000, output: 100 } }] },
          { id: "anthropic", models: { "claude-x": {}, "claude-y": {} } },
        ],
      }),
    ).toEqual(["local/qwen", "anthropic/claude-x", "anthropic/claude-y"])
    expect(parseDefaultModel({ default: "local/qwen", items: [] })).toBe("local/qwen")
    expect(parseDefaultModel({ items: [] })).toBeUndefined()
  })

  it("answers undefined (free text) for anything else", () => {
    for (const body of [undefined, null, "x", 42, {}, { items: [] }, { items: [{ nope: 1 }] }]) {
      expect(parseAgents(body)).toBeUndefined()
      expect(parseModels(body)).toBeUndefined()
    }
  })
})
