import { describe, expect, it } from "vitest"
import { complete, matchCommands, triggerAt } from "../src/completion.ts"
import { parseProviders } from "../src/discovery.ts"

describe("prompt completion", () => {
  it("completes a command only as the first word, and a file mention anywhere", () => {
    expect(triggerAt("/rev", 4)).toEqual({ kind: "command", query: "rev", start: 0, end: 4 })
    expect(triggerAt("say /rev", 8)).toBeUndefined()
    expect(triggerAt("/a/b", 4)).toBeUndefined()
    expect(triggerAt("look at @src/ma please", 15)).toEqual({ kind: "file", query: "src/ma", start: 8, end: 15 })
    expect(triggerAt("mail a@b", 8)).toBeUndefined()
    expect(triggerAt("plain text", 5)).toBeUndefined()
  })

  it("replaces the token and puts the caret after it", () => {
    const trigger = triggerAt("look at @src/ma please", 15)!
    expect(complete("look at @src/ma please", trigger, "src/main.ts")).toEqual({
      text: "look at @src/main.ts please",
      caret: 21,
    })
    expect(complete("/re", triggerAt("/re", 3)!, "review")).toEqual({ text: "/review ", caret: 8 })
  })

  it("ranks commands starting with the query before those containing it", () => {
    const commands = [{ name: "prereview" }, { name: "review" }, { name: "test" }]
    expect(matchCommands(commands, "rev").map((c) => c.name)).toEqual(["review", "prereview"])
    expect(matchCommands(commands, "").map((c) => c.name)).toEqual(["prereview", "review", "test"])
  })

  it("names the providers a prompt cannot use and the key each one needs", () => {
    const listed = {
      data: [
        { id: "local", env: undefined },
        { id: "acme", env: "ACME_KEY", disabled: true },
      ],
    }
    expect(parseProviders(listed)).toEqual([
      { id: "acme", variable: "ACME_KEY" },
      { id: "anthropic", variable: "ANTHROPIC_API_KEY" },
      { id: "openai", variable: "OPENAI_API_KEY" },
    ])
    expect(parseProviders({ data: [{ id: "anthropic", env: "ANTHROPIC_API_KEY" }] })).toEqual([
      { id: "openai", variable: "OPENAI_API_KEY" },
    ])
  })
})
