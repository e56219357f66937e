import type { CommandInfo, ConfigDiagnostic, ModelRef } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { join } from "node:path"
import { Config } from "../config/config.ts"
import { configHome } from "../config/home.ts"
import { parseModel } from "../provider/registry.ts"
import { definitionRoots, type DefinitionFile, loadDefinitions } from "./definition-files.ts"
import { FrontmatterError, parseFrontmatter } from "./frontmatter.ts"
import { TooLargeError } from "../domain/error.ts"
import { EXPANSION_MAX_BYTES, expandTemplate, expandedSize, parseInvocation } from "./template.ts"

/** The commands defined for a directory, and the files left out with why. */
export interface CommandListing {
  readonly commands: ReadonlyArray<CommandInfo>
  readonly diagnostics: ReadonlyArray<ConfigDiagnostic>
}

/** A prompt that invoked a command, expanded. */
export interface Expansion {
  readonly command: CommandInfo
  /** The template with the arguments filled in: what is admitted as the user message. */
  readonly text: string
}

export interface CommandsShape {
  /**
   * The commands for a session directory: Markdown files under `.opencode/command/` and `.opencode/commands/`
   * there, then under `command/` and `commands/` of the global config directory; a project command hides
   * a global one of the same name. Read on every call, so an edited file applies to the next prompt.
   */
  list(directory: string): Effect.Effect<CommandListing>
  /**
   * The expansion of `text` if it starts with `/name` and `name` is a command; undefined otherwise.
   * `Session.TooLargeError` when the expansion would exceed `EXPANSION_MAX_BYTES` (checked before it is built).
   */
  expand(directory: string, text: string): Effect.Effect<Expansion | undefined, TooLargeError>
}

const SUBDIRECTORIES = ["command", "commands"] as const

/** The directories commands are read from, highest precedence first. */
export const commandRoots = (directory: string, home: string): Array<string> =>
  definitionRoots(SUBDIRECTORIES, directory, home)

const optionalString = (attributes: Readonly<Record<string, unknown>>, key: string) => {
  const value = attributes[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== "string") throw new FrontmatterError(`"${key}" must be a string`)
  return value
}

/** One command file as a command; throws `FrontmatterError` naming what is wrong. */
export const parseCommandFile = (name: string, text: string): CommandInfo => {
  const { attributes, body } = parseFrontmatter(text)
  const description = optionalString(attributes, "description")
  const agent = optionalString(attributes, "agent")
  const modelName = optionalString(attributes, "model")
  let model: ModelRef | undefined
  if (modelName !== undefined) {
    if (!/^[^/]+\/.+$/.test(modelName)) throw new FrontmatterError(`"model" must be "<providerID>/<modelID>"`)
    model = parseModel(modelName)
  }
  const subtask = attributes["subtask"]
  if (subtask !== undefined && subtask !== null && typeof subtask !== "boolean")
    throw new FrontmatterError(`"subtask" must be true or false`)
  if (body.trim() === "") throw new FrontmatterError("the command has no template (the file body is empty)")
  return {
    name,
    template: body,
    ...(description !== undefined ? { description } : {}),
    ...(agent !== undefined ? { agent } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(typeof subtask === "boolean" ? { subtask } : {}),
  }
}

/** `review/security.md` is `/review/security`: folders group commands. */
const commandName = (file: DefinitionFile) => file.relative.slice(0, -".md".length)

/** Reads the command files under the roots; a file that does not parse becomes a diagnostic. */
export const loadCommands = (roots: ReadonlyArray<string>): Effect.Effect<CommandListing> =>
  Effect.map(
    loadDefinitions(
      {
        kind: "command",
        accept: (rel) => rel.endsWith(".md"),
        nameOf: commandName,
        parse: (file) => parseCommandFile(commandName(file), file.text),
      },
      roots,
    ),
    ({ items, diagnostics }) => ({ commands: items, diagnostics }),
  )

/** The commands of the session directory and the global config directory (see `CommandsShape`). */
export class Commands extends Context.Service<Commands, CommandsShape>()("@opencode-ai/core/command/Commands") {
  static readonly layer = Layer.effect(
    Commands,
    Effect.gen(function* () {
      const config = yield* Config
      const home = config.home ?? configHome()
      const list = Effect.fn("Commands.list")((directory: string) => loadCommands(commandRoots(directory, home)))
      const implementation = Commands.of({
        list,
        expand: Effect.fn("Commands.expand")((directory, text) =>
          Effect.gen(function* () {
            const invocation = parseInvocation(text)
            if (!invocation) return undefined
            const roots = commandRoots(directory, home)
            const { commands, diagnostics } = yield* loadCommands(roots)
            const command = commands.find((candidate) => candidate.name === invocation.name)
            if (!command) {
              // Sent as typed, but say why when the user meant a command whose file is broken.
              const files = new Set(roots.map((root) => join(root, `${invocation.name}.md`)))
              for (const broken of diagnostics.filter((diagnostic) => files.has(diagnostic.path)))
                yield* Effect.logWarning(
                  `/${invocation.name} is sent as typed: its command file ${broken.path} was left out (${broken.message})`,
                )
              return undefined
            }
            const size = expandedSize(command.template, invocation.arguments)
            if (size > EXPANSION_MAX_BYTES)
              return yield* new TooLargeError({
                message: `command /${command.name} would expand to ${size} bytes, over the limit of ${EXPANSION_MAX_BYTES}`,
                limit: EXPANSION_MAX_BYTES,
                command: command.name,
              })
            return { command, text: expandTemplate(command.template, invocation.arguments) }
          }),
        ),
      })
      return implementation
    }),
  )
}
