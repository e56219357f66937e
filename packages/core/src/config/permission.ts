import { Schema } from "effect"

/** Which permission rule governs a tool call (docs/tools.md). */
export type PermissionKey =
  | "read"
  | "edit"
  | "bash"
  | "skill"
  | "task"
  | "mcp"
  | "webfetch"
  | "todowrite"
  | "todoread"
  | "question"
  | "plugin"
  | "lsp"

/** What a rule says about a call: run it, refuse it, or ask the user. */
export const PermissionAction = Schema.Literals(["allow", "ask", "deny"])
export type PermissionAction = typeof PermissionAction.Type

/** One action for every call of a kind, or patterns (`*` wildcard) to actions; the longest match wins. */
export const PermissionRule = Schema.Union([PermissionAction, Schema.Record(Schema.String, PermissionAction)])
export type PermissionRule = typeof PermissionRule.Type

/**
 * `permission` in `opencode.json`, globally and per agent (`agent.<id>.permission` replaces the global
 * rule of each key it names). `edit` covers edit, write and patch (patterns: file paths relative to the
 * session directory); `bash` matches each simple command of the line (`tool/bash-commands.ts`); `read`
 * covers read, list, grep and glob (paths); `skill` the skill tool (skill names); `task` matches the subagent a
 * `task` call starts (its id).
 */
export const PermissionConfig = Schema.Struct({
  read: Schema.optional(PermissionRule),
  edit: Schema.optional(PermissionRule),
  bash: Schema.optional(PermissionRule),
  /** The `skill` tool loading a skill into the conversation (patterns: skill names). Default allow. */
  skill: Schema.optional(PermissionRule),
  task: Schema.optional(PermissionRule),
  /** Tools of MCP servers (patterns: tool ids, `<server>_<tool>`, e.g. `"github_*"`). Default ask. */
  mcp: Schema.optional(PermissionRule),
  /** Patterns: the URL fetched. */
  webfetch: Schema.optional(PermissionRule),
  todowrite: Schema.optional(PermissionRule),
  todoread: Schema.optional(PermissionRule),
  question: Schema.optional(PermissionRule),
  /** Tools registered by plugins (patterns: tool ids). Default allow: a plugin is code the user installed. */
  plugin: Schema.optional(PermissionRule),
  /** The `lsp` tool (patterns: file paths). Default allow: it only reads. */
  lsp: Schema.optional(PermissionRule),
})
export type PermissionConfig = typeof PermissionConfig.Type

/**
 * Without config: reading and loading skills is allowed, changing files, running commands, fetching URLs
 * and calling MCP tools is asked. The todo list and questions are allowed: they touch nothing outside the
 * session, and a question is itself addressed to the user.
 */
export const DEFAULT_RULES: Readonly<Record<PermissionKey, PermissionAction>> = {
  read: "allow",
  edit: "ask",
  bash: "ask",
  // A skill is instructions the user put in their project or config directory, read like any file there.
  skill: "allow",
  // A child session's own calls meet the rules themselves; starting one changes nothing.
  task: "allow",
  // An MCP tool can do anything its server can (write files, call services): the user decides.
  mcp: "ask",
  webfetch: "ask",
  todowrite: "allow",
  todoread: "allow",
  question: "allow",
  // A plugin already runs with the host's rights; its tool asks (`ctx.ask`) before what needs the user.
  plugin: "allow",
  // Asking a language server about a file reads it, like `read`.
  lsp: "allow",
}

const compiled = new Map<string, RegExp>()
/** `*` matches any run of characters (spaces and slashes included), `?` one character; the rest is literal. */
export const wildcard = (pattern: string, subject: string): boolean => {
  let regex = compiled.get(pattern)
  if (regex === undefined) {
    const source = pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, "[\\s\\S]*")
      .replace(/\?/g, "[\\s\\S]")
    regex = new RegExp(`^${source}$`)
    if (compiled.size > 1000) compiled.clear()
    compiled.set(pattern, regex)
  }
  return regex.test(subject)
}

const severity: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 }

/** The rule that applies to a kind of call: the agent's, else the global one, else the default. */
export const ruleFor = (
  key: PermissionKey,
  global: PermissionConfig | undefined,
  agent: PermissionConfig | undefined,
): PermissionRule => agent?.[key] ?? global?.[key] ?? DEFAULT_RULES[key]

/**
 * The action for a call whose subjects are `patterns`. Per subject, the longest matching rule pattern
 * wins (so `"*"` is the fallback) and a subject no pattern matches gets the kind's default; over several
 * subjects (a patch touching several files, the commands of a bash line) the strictest action wins.
 * Subjects listed in `unresolved` (a bash command whose name is not static, a line that does not parse)
 * are never allowed by a rule, not even `"allow"` or `"*": "allow"`: they are asked unless denied.
 */
export const evaluate = (
  key: PermissionKey,
  rule: PermissionRule,
  patterns: ReadonlyArray<string>,
  unresolved: ReadonlyArray<string> = [],
): PermissionAction => {
  const atLeastAsk = (subject: string, action: PermissionAction): PermissionAction =>
    action === "allow" && unresolved.includes(subject) ? "ask" : action
  let result: PermissionAction = "allow"
  for (const subject of patterns.length > 0 ? patterns : [""]) {
    let action: PermissionAction
    if (typeof rule === "string") action = rule
    else {
      let best: { length: number; action: PermissionAction } | undefined
      for (const [pattern, candidate] of Object.entries(rule)) {
        if (!wildcard(pattern, subject)) continue
        if (best === undefined || pattern.length > best.length) best = { length: pattern.length, action: candidate }
      }
      action = best?.action ?? DEFAULT_RULES[key]
    }
    action = atLeastAsk(subject, action)
    if (severity[action] > severity[result]) result = action
  }
  return result
}

/**
 * Whether session-scoped `always` answers cover every subject of a new call of the same kind. Subjects are
 * compared exactly: a granted `ls *.txt` is that command, not a wildcard over other commands. The one
 * exception is an `edit` grant of `*` (what `always` on a file change saves): every edit of the session.
 */
export const covered = (
  granted: ReadonlyArray<{ readonly permission: string; readonly patterns: ReadonlyArray<string> }>,
  key: PermissionKey,
  patterns: ReadonlyArray<string>,
): boolean =>
  patterns.length > 0 &&
  patterns.every((subject) =>
    granted.some(
      (grant) =>
        grant.permission === key &&
        ((key === "edit" && grant.patterns.includes("*")) || grant.patterns.includes(subject)),
    ),
  )
