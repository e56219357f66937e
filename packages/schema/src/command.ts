import { Schema } from "effect"
import { ModelRef } from "./model.ts"

/**
 * A slash command: `/name args` in a prompt expands `template` (`$ARGUMENTS`, `$1`...) before admission.
 * Upstream's `CommandV2Info`.
 */
export const CommandInfo = Schema.Struct({
  name: Schema.String,
  template: Schema.String,
  description: Schema.optional(Schema.String),
  agent: Schema.optional(Schema.String),
  model: Schema.optional(ModelRef),
  subtask: Schema.optional(Schema.Boolean),
}).annotate({ identifier: "CommandV2Info" })
export type CommandInfo = typeof CommandInfo.Type

/** A skill the model can load on request. Upstream's `SkillV2Info`. */
export const SkillInfo = Schema.Struct({
  name: Schema.String,
  description: Schema.optional(Schema.String),
  slash: Schema.optional(Schema.Boolean),
  location: Schema.String,
  content: Schema.String,
}).annotate({ identifier: "SkillV2Info" })
export type SkillInfo = typeof SkillInfo.Type

/**
 * Addition: a problem with a definition file that did not stop the host, e.g. a command file whose
 * frontmatter does not parse. The file is left out; everything else is still offered. `kind` says which
 * definitions the file belongs to (`config` for `opencode.json` itself, e.g. an unknown key).
 */
export const ConfigDiagnostic = Schema.Struct({
  kind: Schema.Literals(["config", "command", "skill"]),
  path: Schema.String,
  message: Schema.String,
}).annotate({ identifier: "ConfigDiagnostic" })
export type ConfigDiagnostic = typeof ConfigDiagnostic.Type
