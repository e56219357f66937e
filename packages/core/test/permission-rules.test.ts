import { describe, expect, test } from "vitest"
import { covered, evaluate, ruleFor, wildcard } from "../src/config/permission.ts"

describe("permission rules", () => {
  const bash = { "git status*": "allow", "rm *": "deny", "*": "ask" } as const

  test("the longest matching pattern wins; * is the fallback", () => {
    expect(evaluate("bash", bash, ["git status --short"])).toBe("allow")
    expect(evaluate("bash", bash, ["rm -rf build"])).toBe("deny")
    expect(evaluate("bash", bash, ["ls"])).toBe("ask")
    expect(evaluate("bash", { ...bash, "rm -rf build": "allow" }, ["rm -rf build"])).toBe("allow")
  })

  test("a subject no pattern matches gets the kind's default; several subjects take the strictest", () => {
    expect(evaluate("bash", { "git *": "allow" }, ["ls"])).toBe("ask")
    expect(evaluate("read", { "secret/*": "deny" }, ["src/a.ts"])).toBe("allow")
    expect(evaluate("edit", { "docs/*": "allow", "*": "ask", "secret/*": "deny" }, ["docs/a.md", "src/b.ts"])).toBe(
      "ask",
    )
    expect(evaluate("edit", { "docs/*": "allow", "secret/*": "deny", "*": "ask" }, ["docs/a.md", "secret/k"])).toBe(
      "deny",
    )
  })

  test("unresolved subjects are asked where a rule would allow them, denied where it denies", () => {
    expect(evaluate("bash", "allow", ["ls", "$CMD x"], ["$CMD x"])).toBe("ask")
    expect(evaluate("bash", { "*": "allow" }, ["ls", "$CMD x"], ["$CMD x"])).toBe("ask")
    expect(evaluate("bash", { "*": "allow", "$CMD *": "deny" }, ["$CMD x"], ["$CMD x"])).toBe("deny")
    expect(evaluate("bash", { "*": "allow" }, ["ls", "$CMD x"], [])).toBe("allow")
  })

  test("an agent's rule replaces the global one for its keys; defaults otherwise", () => {
    expect(ruleFor("edit", { edit: "allow", bash: "deny" }, { edit: "deny" })).toBe("deny")
    expect(ruleFor("bash", { edit: "allow", bash: "deny" }, { edit: "deny" })).toBe("deny")
    expect([
      ruleFor("read", undefined, undefined),
      ruleFor("edit", undefined, undefined),
      ruleFor("bash", undefined, undefined),
    ]).toEqual(["allow", "ask", "ask"])
  })

  test("wildcards: * spans spaces and slashes, ? one character, the rest is literal", () => {
    expect(wildcard("src/*", "src/a/b.ts")).toBe(true)
    expect(wildcard("a?c", "abc")).toBe(true)
    expect(wildcard("a.c", "abc")).toBe(false)
    expect(wildcard("(x)*", "(x) y")).toBe(true)
  })

  test("always grants cover the same subjects of the same kind only, compared exactly", () => {
    const grants = [
      { permission: "bash", patterns: ["ls *.txt"] },
      { permission: "edit", patterns: ["a.txt"] },
    ]
    expect(covered(grants, "bash", ["ls *.txt"])).toBe(true)
    expect(covered(grants, "bash", ["ls secret.txt"])).toBe(false)
    expect(covered(grants, "edit", ["a.txt", "b.txt"])).toBe(false)
    expect(covered(grants, "read", ["a.txt"])).toBe(false)
  })

  test('an edit grant of "*" covers every edit; a "*" of another kind is only that literal subject', () => {
    const grants = [
      { permission: "edit", patterns: ["*"] },
      { permission: "bash", patterns: ["*"] },
    ]
    expect(covered(grants, "edit", ["src/a.ts", "b.txt"])).toBe(true)
    expect(covered(grants, "bash", ["rm -rf build"])).toBe(false)
    expect(covered(grants, "bash", ["*"])).toBe(true)
    expect(covered(grants, "read", ["a.txt"])).toBe(false)
  })
})
