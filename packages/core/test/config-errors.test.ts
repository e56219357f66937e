import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { configWarnings, ConfigError, parseConfig } from "../src/config/config.ts"
import { nearestKey } from "../src/config/nearest-key.ts"

const failure = (text: string) => {
  const exit = Effect.runSyncExit(parseConfig(text, "/p/opencode.json", {}))
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
  expect(error).toBeInstanceOf(ConfigError)
  return (error as ConfigError).message
}

describe("config errors a person can act on", () => {
  it("a missing comma names the line, the column and what is expected, in words", () => {
    const message = failure('{\n  "model": "offline/echo"\n  "agent": {}\n}\n')
    expect(message).toMatch(/^syntax error at line 3, column 3: expected "," between entries/)
    expect(message).not.toContain("CloseBraceExpected")
    // The offending line, with a caret under the column.
    expect(message).toContain('\n    "agent": {}\n    ^')
  })

  it("a bad value and an unclosed string are described, not coded", () => {
    expect(failure('{ "events": { "persist": tru } }')).toMatch(/line 1, column 26: unexpected "tru": expected a value/)
    expect(failure('{ "agent": { "a": {} ')).toMatch(/expected "}" to close the object/)
    expect(failure('{ "model": "offline/echo }')).toMatch(/line 1, column \d+: a string is never closed/)
  })

  it("the position points into the file as written, even when {env:...} substitution changes its length", () => {
    const exit = Effect.runSyncExit(
      parseConfig('{ "model": "{env:M}", "x": tru }', "/p/opencode.json", { M: "a-very-long-value/xxxxxxxxxxxxxxxxx" }),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(failure('{ "model": "{env:M}", "x": tru }')).toMatch(/column 28/)
  })

  it('an unknown key suggests the nearest declared key at its place ("did you mean")', () => {
    const warnings = configWarnings(JSON.stringify({ modle: "x/y", agent: { build: { sytem: "hi" } }, zzzzzz: 1 }))
    expect(warnings).toContain('unknown key "modle" (ignored); did you mean "model"?')
    expect(warnings.find((w) => w.includes("agent.build.sytem"))).toMatch(/did you mean "system"\?$/)
    // Nothing close: no guess.
    expect(warnings).toContain('unknown key "zzzzzz" (ignored)')
  })

  it("nearestKey takes typos, swaps and case, and refuses distant names", () => {
    expect(nearestKey("modle", ["model", "agent"])).toBe("model")
    expect(nearestKey("Agnet", ["model", "agent"])).toBe("agent")
    expect(nearestKey("permisions", ["permission", "plugin"])).toBe("permission")
    expect(nearestKey("xyz", ["model", "agent"])).toBeUndefined()
    expect(nearestKey("a", [])).toBeUndefined()
  })
})
