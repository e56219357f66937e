import { Effect } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { commandRoots, Commands, loadCommands } from "../src/command/commands.ts"
import { DEFINITION_MAX_BYTES } from "../src/command/definition-files.ts"
import { FrontmatterError, parseFrontmatter } from "../src/command/frontmatter.ts"
import { loadSkills, skillRoots } from "../src/command/skills.ts"
import {
  EXPANSION_MAX_BYTES,
  expandedSize,
  expandTemplate,
  parseInvocation,
  splitArguments,
} from "../src/command/template.ts"
import { Config } from "../src/config/config.ts"
import { TooLargeError } from "../src/domain/error.ts"

describe("command invocation", () => {
  it("is a prompt starting with /name, arguments trimmed; a path-like or bare slash is not one", () => {
    expect(parseInvocation("/review src/a.ts  fast ")).toEqual({ name: "review", arguments: "src/a.ts  fast" })
    expect(parseInvocation("  /fix")).toEqual({ name: "fix", arguments: "" })
    expect(parseInvocation("/group/sub arg\nsecond line")).toEqual({ name: "group/sub", arguments: "arg\nsecond line" })
    expect(parseInvocation("please /review")).toBeUndefined()
    expect(parseInvocation("/")).toBeUndefined()
    expect(parseInvocation("// comment")).toBeUndefined()
  })
})

describe("template expansion", () => {
  it("fills $ARGUMENTS with the arguments as typed and $1.. with words, the last placeholder taking the rest", () => {
    expect(expandTemplate("Review $ARGUMENTS now", "a.ts  b.ts")).toBe("Review a.ts  b.ts now")
    expect(expandTemplate("from $1 to $2", "x y z")).toBe("from x to y z")
    expect(expandTemplate("$2 then $1", '"two words" other')).toBe("other then two words")
    expect(expandTemplate("only $1 and $3", "a")).toBe("only a and ")
    expect(splitArguments(`a 'b c' "d e" f`)).toEqual(["a", "b c", "d e", "f"])
  })

  it("inserts arguments that contain placeholders as typed", () => {
    expect(expandTemplate("[$1] [$ARGUMENTS]", "$ARGUMENTS $1")).toBe("[$ARGUMENTS $1] [$ARGUMENTS $1]")
  })

  it("appends the arguments after a template without placeholders, and leaves it alone without arguments", () => {
    expect(expandTemplate("Run the tests.\n", "only unit")).toBe("Run the tests.\n\nonly unit")
    expect(expandTemplate("Run the tests.\n", "")).toBe("Run the tests.\n")
  })
})

describe("frontmatter", () => {
  it("splits attributes from the body; a file without one is all body", () => {
    expect(parseFrontmatter("---\ndescription: Hi\nsubtask: true\n---\nBody $1\n")).toEqual({
      attributes: { description: "Hi", subtask: true },
      body: "Body $1\n",
    })
    expect(parseFrontmatter("Just text")).toEqual({ attributes: {}, body: "Just text" })
  })

  it("refuses a block that does not close, is not YAML or is not a mapping", () => {
    expect(() => parseFrontmatter("---\ndescription: x\nbody")).toThrow(FrontmatterError)
    expect(() => parseFrontmatter("---\ndescription: [unclosed\n---\nbody")).toThrow(/not valid YAML/)
    expect(() => parseFrontmatter("---\n- a\n- b\n---\nbody")).toThrow(/mapping/)
  })
})

const write = (path: string, text: string) => {
  mkdirSync(join(path, ".."), { recursive: true })
  writeFileSync(path, text)
}

describe("definition files", () => {
  it.effect(
    "project commands hide global ones of the same name; a broken file is a diagnostic and the rest still load",
    () =>
      Effect.gen(function* () {
        const root = mkdtempSync(join(tmpdir(), "opencode2-commands-"))
        const project = join(root, "project")
        const home = join(root, "home")
        write(join(project, ".opencode/command/review.md"), "---\ndescription: project review\n---\nReview $ARGUMENTS")
        write(join(project, ".opencode/commands/group/sub.md"), "Nested")
        write(join(project, ".opencode/command/broken.md"), "---\nagent: [oops\n---\nx")
        write(join(project, ".opencode/command/badmodel.md"), "---\nmodel: nomodel\n---\nx")
        write(join(project, ".opencode/command/notes.txt"), "not a command")
        write(join(project, ".opencode/command/huge.md"), "x".repeat(DEFINITION_MAX_BYTES + 1))
        write(join(home, "command/review.md"), "global review")
        write(join(home, "command/global.md"), "---\nmodel: offline/echo\nsubtask: false\n---\nG")
        const listing = yield* loadCommands(commandRoots(project, home))
        expect(listing.commands.map((c) => c.name)).toEqual(["global", "group/sub", "review"])
        expect(listing.commands.find((c) => c.name === "review")).toMatchObject({
          description: "project review",
          template: "Review $ARGUMENTS",
        })
        expect(listing.commands.find((c) => c.name === "global")).toMatchObject({
          model: { providerID: "offline", id: "echo" },
          subtask: false,
        })
        expect(listing.diagnostics.map((d) => [d.kind, d.path.slice(project.length)])).toEqual([
          ["command", "/.opencode/command/badmodel.md"],
          ["command", "/.opencode/command/broken.md"],
          ["command", "/.opencode/command/huge.md"],
        ])
        expect(listing.diagnostics[1]!.message).toContain("not valid YAML")
        expect(listing.diagnostics[2]!.message).toContain("larger than")
      }),
  )

  it.effect("skills need a name and a description; others are diagnostics", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "opencode2-skills-"))
      const project = join(root, "project")
      const home = join(root, "home")
      write(join(project, ".opencode/skill/deploy/SKILL.md"), "---\nname: deploy\ndescription: Ship it\n---\nSteps")
      write(join(project, ".opencode/skill/nameless/SKILL.md"), "---\ndescription: no name\n---\nx")
      write(join(project, ".opencode/skill/loose.md"), "---\nname: loose\ndescription: not in a folder\n---\nx")
      write(join(home, "skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: global\n---\nG")
      write(join(home, "skills/lint/SKILL.md"), "---\nname: lint\ndescription: Lint\n---\nL")
      const listing = yield* loadSkills(skillRoots(project, home))
      expect(listing.skills.map((s) => [s.name, s.description, s.content])).toEqual([
        ["deploy", "Ship it", "Steps"],
        ["lint", "Lint", "L"],
      ])
      expect(listing.diagnostics).toHaveLength(1)
      expect(listing.diagnostics[0]).toMatchObject({ kind: "skill", message: expect.stringContaining('"name"') })
    }),
  )
})

describe("expansion size", () => {
  it("is computed without building the text, and equals the built text's UTF-8 size", () => {
    const cases: Array<[string, string]> = [
      ["Review $ARGUMENTS now", "a.ts  b.ts"],
      ["from $1 to $2", "x y z"],
      ["$2 then $1", '"two words" other'],
      ["only $1 and $3 and $0", "a"],
      ["no placeholders  \n", "é ü"],
      ["no placeholders", ""],
      ["$ARGUMENTS $1 $ARGUMENTS", "ünï $1 $ARGUMENTS"],
    ]
    for (const [template, args] of cases)
      expect(expandedSize(template, args)).toBe(Buffer.byteLength(expandTemplate(template, args)))
    expect(expandedSize("$ARGUMENTS\n".repeat(20_000), "a".repeat(2048))).toBe(20_000 * 2049)
    expect(EXPANSION_MAX_BYTES).toBe(1024 * 1024)
  })

  it("over the limit fails the command's expansion with Session.TooLargeError naming it", async () => {
    const directory = mkdtempSync(join(tmpdir(), "cmd-size-"))
    const home = mkdtempSync(join(tmpdir(), "cmd-home-"))
    mkdirSync(join(directory, ".opencode/command"), { recursive: true })
    writeFileSync(join(directory, ".opencode/command/big.md"), "$ARGUMENTS\n".repeat(20_000))
    const expand = (text: string) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const commands = yield* Commands
          return yield* Effect.result(commands.expand(directory, text))
        }).pipe(Effect.provide(Commands.layer), Effect.provide(Config.layer({ data: {}, directory, home }))),
      )
    const refused = await expand(`/big ${"a".repeat(2048)}`)
    expect(refused._tag).toBe("Failure")
    if (refused._tag === "Failure") {
      expect(refused.failure).toBeInstanceOf(TooLargeError)
      expect(refused.failure).toMatchObject({ command: "big", limit: EXPANSION_MAX_BYTES })
      expect(refused.failure.message).toContain("/big")
    }
    const fine = await expand("/big a")
    expect(fine._tag).toBe("Success")
  })
})
