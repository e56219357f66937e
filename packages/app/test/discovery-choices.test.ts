import { describe, expect, it } from "vitest"
import { parseAgents, parseDefaultModel, parseModels } from "../src/discovery.ts"

describe("agent and model choices from discovery", () => {
  it("offers the primary agents a prompt can name, not hidden ones or subagents", () => {
    expect(
      parseAgents({
        location: { directory: "/d" },
        data: [
          { id: "build", mode: "primary", hidden: false },
          { id: "plan", mode: "all", hidden: false },
          { id: "general", mode: "subagent", hidden: false },
          { id: "title", mode: "primary", hidden: true },
        ],
      }),
    ).toEqual(["build", "plan"])
  })

  it("names enabled models as provider/model, with the server's default", () => {
    const body = {
      data: [
        { id: "qwen", providerID: "local", enabled: true, default: true },
        { id: "claude-x", providerID: "anthropic", enabled: true },
        { id: "old", providerID: "anthropic", enabled: false },
      ],
    }
    expect(parseModels(body)).toEqual(["local/qwen", "anthropic/claude-x"])
    expect(parseDefaultModel(body)).toBe("local/qwen")
    expect(parseDefaultModel({ data: [{ id: "a", providerID: "p" }] })).toBeUndefined()
  })

  it("answers undefined (free text) for anything else", () => {
    for (const body of [undefined, null, "x", 42, {}, { data: [] }, { data: [{ nope: 1 }] }, { data: {} }]) {
      expect(parseAgents(body)).toBeUndefined()
      expect(parseModels(body)).toBeUndefined()
    }
  })
})
