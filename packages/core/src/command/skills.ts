import type { ConfigDiagnostic, SkillInfo } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { Config } from "../config/config.ts"
import { configHome } from "../config/home.ts"
import { definitionRoots, loadDefinitions } from "./definition-files.ts"
import { FrontmatterError, parseFrontmatter } from "./frontmatter.ts"

/** The skills defined for a directory, and the files left out with why. */
export interface SkillListing {
  readonly skills: ReadonlyArray<SkillInfo>
  readonly diagnostics: ReadonlyArray<ConfigDiagnostic>
}

export interface SkillsShape {
  /**
   * The skills for a session directory: `<name>/SKILL.md` under `.opencode/skill/` and `.opencode/skills/`
   * there, then under `skill/` and `skills/` of the global config directory; a project skill hides a global
   * one of the same name. Read on every call.
   */
  list(directory: string): Effect.Effect<SkillListing>
  /** One skill by name, or undefined. */
  get(directory: string, name: string): Effect.Effect<SkillInfo | undefined>
}

const SUBDIRECTORIES = ["skill", "skills"] as const
const SKILL_FILE = /^[^/]+\/SKILL\.md$/
/** Names the model can type back exactly: no whitespace, no path separators. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** The directories skills are read from, highest precedence first. */
export const skillRoots = (directory: string, home: string): Array<string> =>
  definitionRoots(SUBDIRECTORIES, directory, home)

/** One `SKILL.md` as a skill; throws `FrontmatterError` naming what is wrong. */
export const parseSkillFile = (path: string, text: string): SkillInfo => {
  const { attributes, body } = parseFrontmatter(text)
  const name = attributes["name"]
  const description = attributes["description"]
  if (typeof name !== "string" || name === "") throw new FrontmatterError(`"name" is required and must be a string`)
  if (!SKILL_NAME.test(name))
    throw new FrontmatterError(`"name" must be letters, digits, ".", "_" or "-" (got ${JSON.stringify(name)})`)
  // The model picks a skill by its description: one without is never chosen for the right reason.
  if (typeof description !== "string" || description.trim() === "")
    throw new FrontmatterError(`"description" is required and must be a string`)
  return { name, description, location: path, content: body }
}

/** Reads the skills under the roots; a file that does not parse becomes a diagnostic. */
export const loadSkills = (roots: ReadonlyArray<string>): Effect.Effect<SkillListing> =>
  Effect.map(
    loadDefinitions(
      { kind: "skill", accept: (rel) => SKILL_FILE.test(rel), parse: (file) => parseSkillFile(file.path, file.text) },
      roots,
    ),
    ({ items, diagnostics }) => ({ skills: items, diagnostics }),
  )

/** The skills of the session directory and the global config directory (see `SkillsShape`). */
export class Skills extends Context.Service<Skills, SkillsShape>()("@opencode-ai/core/command/Skills") {
  static readonly layer = Layer.effect(
    Skills,
    Effect.gen(function* () {
      const config = yield* Config
      const home = config.home ?? configHome()
      const list = Effect.fn("Skills.list")((directory: string) => loadSkills(skillRoots(directory, home)))
      const implementation = Skills.of({
        list,
        get: Effect.fn("Skills.get")((directory, name) =>
          Effect.map(list(directory), ({ skills }) => skills.find((skill) => skill.name === name)),
        ),
      })
      return implementation
    }),
  )
}
