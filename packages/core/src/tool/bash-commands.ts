import type { Node } from "web-tree-sitter"
import { BASH_PARSE_BUDGET_MS, type BashParseFailure, withBashTree } from "./bash-parser.ts"

/**
 * What the bash permission rules are matched against: every simple command of a command line, each as one
 * subject `"name arg1 arg2 ..."`, its name what bash would run (launchers such as `env`, `nohup`,
 * `timeout` removed). What cannot be read statically is `unresolved`: rules may deny or ask it, never
 * allow it. The full rules, and what is not followed, are in docs/tools.md.
 */
export interface BashCommands {
  /** Every subject once, in order of appearance. */
  readonly subjects: ReadonlyArray<string>
  /** Subjects a rule can deny or ask but never allow, with why (for the person asked). */
  readonly unresolved: ReadonlyArray<{ readonly subject: string; readonly reason: string }>
}

/** How deep `eval` / `bash -c` / `trap` scripts inside scripts are followed; deeper ones are unresolved. */
const MAX_NESTING = 4
/** How many `eval` / `bash -c` / `trap` scripts one line may carry before the rest are unresolved. */
const MAX_NESTED_SCRIPTS = 32

interface Subject {
  readonly text: string
  /** Why a rule cannot allow it; absent when the subject is what bash runs. */
  readonly unresolved?: string
}

/** A word of a simple command: its static value when it has one, and its source text. */
interface Word {
  readonly text: string
  readonly value: string | undefined
  /** The value came from unquoted glob or brace characters: bash may expand it into other words. */
  readonly pattern: boolean
}

/** A script found in a command (`eval ...`, `bash -c ...`, `trap ...`), analysed after the walk. */
interface Nested {
  readonly script: string
  /** The subject that carried it, reported when the script cannot be analysed. */
  readonly origin: string
  /** Its commands run with arguments read from input (a script under `xargs`). */
  readonly fromInput: boolean
}

const RESERVED = new Set([
  "!",
  "{",
  "}",
  "[[",
  "]]",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "until",
  "while",
])

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"])

const failureReason: Record<BashParseFailure, string> = {
  "too-long": "the command line is too long to be analysed",
  syntax: "the command line could not be parsed",
  budget: "parsing the command line took too long",
  unavailable: "the bash parser could not be loaded",
}

/** `\x` -> `x` and `\<newline>` -> nothing, outside quotes; notes unquoted glob and brace characters. */
const unquoted = (text: string): { value: string; pattern: boolean } => {
  let value = ""
  let pattern = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\") {
      const next = text[i + 1]
      if (next === undefined) break
      if (next !== "\n") value += next
      i++
      continue
    }
    if (c === "*" || c === "?" || c === "[" || c === "{") pattern = true
    value += c
  }
  return { value, pattern }
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
const doubleQuoted = (text: string): string => text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c))

const DYNAMIC = { value: undefined, pattern: false } as const

const wordOf = (node: Node): Word => ({ text: node.text, ...valueOf(node) })

/** The value bash gives a word without running or expanding anything, when it has one. */
const valueOf = (node: Node): { value: string | undefined; pattern: boolean } => {
  switch (node.type) {
    case "word":
    case "number":
      return unquoted(node.text)
    case "raw_string":
      return { value: node.text.slice(1, -1), pattern: false }
    case "string":
      return node.namedChildren.every((child) => child?.type === "string_content")
        ? { value: doubleQuoted(node.text.slice(1, -1)), pattern: false }
        : DYNAMIC
    case "translated_string": {
      const inner = node.namedChildren[0]
      return inner ? valueOf(inner) : DYNAMIC
    }
    case "ansi_c_string": {
      // `$'...'` without escapes is literal; escapes (`\x72`) are left to the unresolved path.
      const inner = node.text.slice(2, -1)
      return inner.includes("\\") ? DYNAMIC : { value: inner, pattern: false }
    }
    case "concatenation": {
      let value = ""
      let pattern = false
      for (const child of node.namedChildren) {
        if (!child) return DYNAMIC
        const part = valueOf(child)
        if (part.value === undefined) return DYNAMIC
        value += part.value
        pattern ||= part.pattern
      }
      // Parts the grammar keeps unnamed (a lone `=`) are literal text between the named ones.
      return node.namedChildren.length === node.children.length ? { value, pattern } : unquotedConcatenation(node)
    }
    default:
      return DYNAMIC
  }
}

/** A concatenation with unnamed literal parts: every part, named or not, in order. */
const unquotedConcatenation = (node: Node): { value: string | undefined; pattern: boolean } => {
  let value = ""
  let pattern = false
  for (const child of node.children) {
    if (!child) return DYNAMIC
    const part = child.isNamed ? valueOf(child) : unquoted(child.text)
    if (part.value === undefined) return DYNAMIC
    value += part.value
    pattern ||= part.pattern
  }
  return { value, pattern }
}

const basename = (name: string): string => name.slice(name.lastIndexOf("/") + 1)

const shown = (word: Word): string => word.value ?? word.text

const subjectOf = (name: string, rest: ReadonlyArray<Word>): string => [name, ...rest.map(shown)].join(" ")

/**
 * Options a launcher takes before the command it runs. `value`: options whose value is the next word
 * (unless attached: `-n5`, `--signal=KILL`); `flags`: options without a value. A word that is neither ends
 * the options when it does not start with `-`; an unknown option makes the command unresolved.
 */
interface Launcher {
  readonly value: ReadonlySet<string>
  readonly flags: ReadonlySet<string>
  /** Numeric short options (`nice -5`). */
  readonly numeric?: boolean
  /** Positional words before the command (`timeout DURATION cmd`). */
  readonly positionals?: number
}

const launcher = (value: string, flags: string, extra: Partial<Launcher> = {}): Launcher => ({
  value: new Set(value.split(" ").filter(Boolean)),
  flags: new Set(flags.split(" ").filter(Boolean)),
  ...extra,
})

/** Launchers that only run their arguments as a command: the rules see the command. */
const TRANSPARENT: Record<string, Launcher> = {
  builtin: launcher("", ""),
  exec: launcher("-a", "-c -l"),
  time: launcher("-f -o --format --output", "-p -a -v -q --append --verbose --portability --quiet"),
  nohup: launcher("", ""),
  nice: launcher("-n --adjustment", "", { numeric: true }),
  timeout: launcher("-s -k --signal --kill-after", "-v --verbose --preserve-status --foreground", {
    positionals: 1,
  }),
  stdbuf: launcher("-i -o -e --input --output --error", ""),
  setsid: launcher("", "-c -f -w --ctty --fork --wait"),
  busybox: launcher("", ""),
}

/** Launchers the rules see as themselves, and the command they run as one more subject. */
const VISIBLE: Record<string, Launcher> = {
  sudo: launcher(
    "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --close-from --chdir --role --type --other-user --command-timeout",
    "-A -b -E -H -k -K -n -P -S -i -s -B -N -R -e -l -v -V --askpass --background --preserve-env --set-home --reset-timestamp --remove-timestamp --non-interactive --preserve-groups --stdin --login --shell --bell --no-update",
  ),
  doas: launcher("-u -C", "-n -s -L"),
  xargs: launcher(
    "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var",
    "-0 -e -i -l -o -p -r -t -x --null --interactive --no-run-if-empty --open-tty --verbose --exit --show-limits",
  ),
}

/**
 * Skips a launcher's options. Returns the words of the command it runs, or a reason when they cannot be
 * told apart (an option it does not know).
 */
const skipOptions = (spec: Launcher, words: ReadonlyArray<Word>): ReadonlyArray<Word> | string => {
  let i = 0
  let positionals = spec.positionals ?? 0
  while (i < words.length) {
    const word = words[i]!
    const value = word.value
    if (value === undefined) return "an option of the launcher is not static"
    if (value === "--") {
      i++
      break
    }
    if (!value.startsWith("-") || value === "-") {
      if (positionals === 0) break
      positionals--
      i++
      continue
    }
    const [option] = value.split("=", 1) as [string]
    if (spec.flags.has(option)) {
      i++
      continue
    }
    if (spec.value.has(option)) {
      i += value.includes("=") ? 1 : 2
      continue
    }
    // Attached short values (`-n5`, `-uroot`) and numeric niceness (`-5`).
    if (!value.startsWith("--") && spec.value.has(value.slice(0, 2))) {
      i++
      continue
    }
    if (spec.numeric && /^-\d+$/.test(value)) {
      i++
      continue
    }
    // Clustered short flags (`-nE`).
    if (!value.startsWith("--") && [...value.slice(1)].every((c) => spec.flags.has(`-${c}`))) {
      i++
      continue
    }
    return `unrecognised option ${value}`
  }
  return words.slice(i)
}

/** `env [-i] [-u NAME] [-C DIR] [NAME=VALUE]... command`: the command's words, or why there is none to read. */
const envCommand = (words: ReadonlyArray<Word>): ReadonlyArray<Word> | string => {
  let i = 0
  while (i < words.length) {
    const value = words[i]!.value
    if (value === undefined) return "an argument of env is not static"
    if (value === "--") {
      const after = words.slice(i + 1)
      return after.slice(leadingAssignments(after))
    }
    if (value === "-S" || value.startsWith("-S") || value.startsWith("--split-string")) {
      return "env -S splits a string into a command"
    }
    if (value === "-u" || value === "-C" || value === "--unset" || value === "--chdir") {
      i += 2
      continue
    }
    if (value === "-" || /^-[i0v]+$/.test(value) || /^-[uC]./.test(value)) {
      i++
      continue
    }
    if (/^--(ignore-environment|null|debug|unset=|chdir=|(block|default|ignore)-signal)/.test(value)) {
      i++
      continue
    }
    if (value.startsWith("-")) return `unrecognised option ${value}`
    // env takes every word holding `=` as an assignment, whatever its name.
    if (value.includes("=")) {
      const name = value.slice(0, value.indexOf("="))
      if (SENSITIVE_VARIABLE.test(name)) return sensitiveReason(name)
      i++
      continue
    }
    break
  }
  return words.slice(i)
}

/**
 * Variables whose value bash (or the loader) runs as code or reads a script from: `BASH_ENV` and `ENV`
 * (sourced by a new shell), the prompts (`PS4` is expanded by `set -x`), `PROMPT_COMMAND`, exported
 * functions (`BASH_FUNC_name%%`), shell options, and preloaded libraries. Setting one is unresolved.
 */
const SENSITIVE_VARIABLE = /^(BASH_ENV|ENV|PS[0-4]|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|BASH_FUNC_.*|LD_PRELOAD|LD_AUDIT)$/

const sensitiveReason = (name: string) => `setting ${name} makes bash run what it holds`

const leadingAssignments = (words: ReadonlyArray<Word>): number => {
  let n = 0
  while (n < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[n]!.value ?? "")) n++
  return n
}

/** `command [-p] [-v|-V] ...`: the command it runs, or `undefined` when it only looks a name up. */
const commandBuiltin = (words: ReadonlyArray<Word>): ReadonlyArray<Word> | undefined | string => {
  let i = 0
  while (i < words.length) {
    const value = words[i]!.value
    if (value === undefined) return "an option of command is not static"
    if (value === "--") return words.slice(i + 1)
    if (!value.startsWith("-") || value === "-") break
    if (/^-[pvV]+$/.test(value)) {
      if (/[vV]/.test(value)) return undefined
      i++
      continue
    }
    return `unrecognised option ${value}`
  }
  return words.slice(i)
}

/**
 * What `bash [options] [-c SCRIPT | FILE] ...` runs: the script given with `-c`, `"file"` for a script
 * file (judged by the shell's own subject), `"input"` when the script is read from input (`... | sh`,
 * `bash -s`, `bash <<< ...`), or why the options cannot be read.
 */
const shellScript = (words: ReadonlyArray<Word>): { readonly script: Word } | "file" | "input" | string => {
  let command = false
  let stdin = false
  for (let i = 0; i < words.length; i++) {
    const value = words[i]!.value
    if (value === undefined) {
      if (command) return { script: words[i]! }
      return stdin ? "input" : "an option of the shell is not static"
    }
    if (value === "--" || value === "-") {
      const next = words[i + 1]
      if (command) return next ? { script: next } : "input"
      return next && !stdin ? "file" : "input"
    }
    if (/^[-+][oO]$/.test(value) || value === "--rcfile" || value === "--init-file") {
      i++
      continue
    }
    if (value.startsWith("--")) continue
    if (/^[-+][A-Za-z]+$/.test(value)) {
      if (value.startsWith("-") && value.includes("c")) command = true
      if (value.startsWith("-") && value.includes("s")) stdin = true
      continue
    }
    if (command) return { script: words[i]! }
    return stdin ? "input" : "file"
  }
  return "input"
}

/** `find ... -exec CMD ARG... ;` (also `+`, `-execdir`, `-ok`, `-okdir`): each CMD is a command of its own. */
const findCommands = (words: ReadonlyArray<Word>, out: Collector, fromInput: boolean): void => {
  for (let i = 0; i < words.length; i++) {
    if (!FIND_EXEC.has(words[i]!.value ?? "")) continue
    let end = i + 1
    while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++
    resolve(words.slice(i + 1, end), out, fromInput)
    i = end
  }
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"])

interface Collector {
  readonly subjects: Array<Subject>
  readonly nested: Array<Nested>
}

/**
 * The subjects of one simple command given as words (name first), following launchers. `fromInput` marks
 * commands whose arguments come from input (under `xargs`).
 */
const resolve = (initial: ReadonlyArray<Word>, out: Collector, fromInput = false): void => {
  let words = initial
  const emit = (text: string, unresolved?: string) => {
    const why = unresolved ?? (fromInput ? "its arguments are read from input (xargs)" : undefined)
    out.subjects.push(why === undefined ? { text } : { text, unresolved: why })
  }
  for (;;) {
    const [head, ...rest] = words
    if (!head) return
    if (head.value === undefined) return emit(words.map(shown).join(" "), "the command name is not static")
    if (RESERVED.has(head.value)) return emit(words.map(shown).join(" "), `"${head.value}" is a reserved word here`)
    if (!head.pattern && /^[A-Za-z_][A-Za-z0-9_]*=/.test(head.text)) {
      return emit(words.map(shown).join(" "), "an assignment stands where the command name is expected")
    }
    if (head.pattern) return emit(words.map(shown).join(" "), "the command name is a glob or brace pattern")
    const name = basename(head.value)
    const subject = subjectOf(name, rest)
    if (name === "") return emit(words.map(shown).join(" "), "the command name is empty")

    const transparent = TRANSPARENT[name]
    if (transparent) {
      const inner = skipOptions(transparent, rest)
      if (typeof inner === "string") return emit(subject, inner)
      if (inner.length === 0) return emit(subject)
      // `time` is a keyword: what follows is a whole simple command, assignments included.
      words = name === "time" ? inner.slice(leadingAssignments(inner)) : inner
      if (words.length === 0) return emit(subject)
      continue
    }
    const visible = VISIBLE[name]
    if (visible) {
      emit(subject)
      const inner = skipOptions(visible, rest)
      if (typeof inner === "string") return emit(subject, inner)
      fromInput ||= name === "xargs"
      words = inner
      continue
    }
    switch (name) {
      case "command": {
        const inner = commandBuiltin(rest)
        if (typeof inner === "string") return emit(subject, inner)
        if (inner === undefined || inner.length === 0) return emit(subject)
        words = inner
        continue
      }
      case "env": {
        const inner = envCommand(rest)
        if (typeof inner === "string") return emit(subject, inner)
        if (inner.length === 0) return emit(subject)
        words = inner
        continue
      }
      case "eval": {
        if (rest.length === 0) return
        if (rest.some((word) => word.value === undefined)) return emit(subject, "eval of a string that is not static")
        out.nested.push({ script: rest.map(shown).join(" "), origin: subject, fromInput })
        return
      }
      case "trap": {
        emit(subject)
        const args = rest[0]?.value === "--" ? rest.slice(1) : rest
        const action = args[0]
        if (!action || args.length < 2 || action.value?.startsWith("-")) return
        if (action.value === undefined) return emit(subject, "the trap action is not static")
        out.nested.push({ script: action.value, origin: subject, fromInput })
        return
      }
      case "alias": {
        if (rest.some((word) => word.value === undefined || word.value.includes("="))) {
          return emit(subject, "an alias definition changes what later commands run")
        }
        return emit(subject)
      }
      case "source":
      case ".": {
        const file = rest[0]
        if (file && (file.value === undefined || /^\/(dev\/(stdin|fd\/)|proc\/self\/fd\/)/.test(file.value))) {
          return emit(subject, "the script it runs is read from input or not static")
        }
        return emit(subject)
      }
      case "mapfile":
      case "readarray":
      case "compgen": {
        // `mapfile -C cmd`, `compgen -C cmd` / `-F function` run what they are given.
        if (rest.some((word) => word.value === undefined || /^-\w*[CF]/.test(word.value))) {
          return emit(subject, `${name} runs the command it is given`)
        }
        return emit(subject)
      }
      case "hash": {
        if (rest.some((word) => word.value === undefined || /^-\w*p/.test(word.value))) {
          return emit(subject, "hash -p changes what a command name runs")
        }
        return emit(subject)
      }
      default: {
        emit(subject)
        if (name === "find") return findCommands(rest, out, fromInput)
        if (SHELLS.has(name)) {
          const run = shellScript(rest)
          if (run === "file") return
          if (run === "input") return emit(subject, "the shell reads its script from input")
          if (typeof run === "string") return emit(subject, run)
          if (run.script.value === undefined) return emit(subject, "the shell's script is not static")
          out.nested.push({ script: run.script.value, origin: subject, fromInput })
        }
        return
      }
    }
  }
}

/**
 * Words the grammar put into a redirection although bash gives a redirection one word only: in
 * `echo a >f b c`, `b` and `c` are arguments of `echo` (and in `cat <<EOF a`, `a` is one of `cat`).
 */
const redirectExtras = (redirect: Node): ReadonlyArray<Node> => {
  const present = (nodes: ReadonlyArray<Node | null>) => nodes.filter((n): n is Node => n !== null)
  switch (redirect.type) {
    case "file_redirect":
      return present(redirect.childrenForFieldName("destination")).slice(1)
    case "heredoc_redirect":
      return [
        ...present(redirect.childrenForFieldName("argument")),
        ...present(redirect.childrenForFieldName("redirect")).flatMap(redirectExtras),
      ]
    case "herestring_redirect":
      return present(redirect.namedChildren)
        .filter((n) => n.type !== "file_descriptor")
        .slice(1)
    default:
      return []
  }
}

/**
 * The words of a simple command: its name and arguments, in source order (assignments and redirections
 * are not words), including the arguments the grammar attached to the redirections in `redirects`.
 */
const commandWords = (node: Node, redirects: ReadonlyArray<Node> = []): ReadonlyArray<Word> | undefined => {
  const name = node.childForFieldName("name")?.namedChildren[0]
  if (!name) return undefined
  const present = (nodes: ReadonlyArray<Node | null>) => nodes.filter((n): n is Node => n !== null)
  const extras = [...present(node.childrenForFieldName("redirect")), ...redirects].flatMap(redirectExtras)
  return [name, ...present(node.childrenForFieldName("argument")), ...extras]
    .sort((a, b) => a.startIndex - b.startIndex)
    .map(wordOf)
}

/**
 * Whether unquoted-looking text holds something bash would treat specially but the grammar left inside a
 * plain token: a blank (a word boundary) or the start of a substitution (`` ` ``, `$(`, `${`, `$[`).
 * Escaped characters (`\$(`) are literal.
 */
const misread = (text: string, blanks: boolean): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (c === "`") return true
    if (c === "$" && (text[i + 1] === "(" || text[i + 1] === "{" || text[i + 1] === "[")) return true
    if (blanks && (c === " " || c === "\t" || c === "\n")) return true
  }
  return false
}

/** Whether a here-document's delimiter is quoted (`<<'EOF'`, `<<"EOF"`, `<<\EOF`): then its body is literal. */
const literalHeredoc = (node: Node): boolean => {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type !== "heredoc_redirect") continue
    const start = up.children.find((child) => child?.type === "heredoc_start")
    return start !== undefined && start !== null && /['"\\]/.test(start.text)
  }
  return false
}

/**
 * Whether a here-document ends where bash ends it: a line holding exactly the delimiter (after tabs, for
 * `<<-`). The grammar also ends one at a line that only starts with it (`EOF & more`), where bash reads on,
 * so everything after would be read as commands that bash takes as here-document text, and the reverse.
 */
const heredocEndsAlone = (end: Node, source: string): boolean => {
  const redirect = end.parent
  if (redirect?.type !== "heredoc_redirect") return false
  const start = redirect.children.find((child) => child?.type === "heredoc_start")
  if (!start) return false
  const delimiter = start.text.replace(/\\(.)/g, "$1").replace(/['"]/g, "")
  const stripsTabs = redirect.children.some((child) => child?.type === "<<-")
  let lineStart = end.startIndex
  while (stripsTabs && source[lineStart - 1] === "\t") lineStart--
  const after = source[end.endIndex]
  return end.text === delimiter && source[lineStart - 1] === "\n" && (after === undefined || after === "\n")
}

/**
 * The script bash runs for a backtick substitution: inside backticks a backslash escapes `$`, `` ` `` and
 * `\` (and `"` within double quotes), and the result is parsed again. The grammar does not do that.
 */
const backtickScript = (node: Node): string => {
  let quoted = false
  for (let up = node.parent; up; up = up.parent) if (up.type === "string") quoted = true
  const escaped = quoted ? /\\([$`\\"])/g : /\\([$`\\])/g
  return node.text.slice(1, -1).replace(escaped, "$1")
}

/** Tokens that hold (part of) a word's value; comments and here-document bodies are not values. */
const VALUE_TOKENS = new Set(["word", "raw_string", "string_content", "ansi_c_string"])

/**
 * Collects the subjects of every command in a syntax tree (iteratively: trees may be deep). Returns why
 * the tree cannot be trusted, if it cannot. The grammar is not bash, so what it may have read differently
 * is checked: bash drops `\<newline>` before it splits words, so two tokens the grammar separated only by
 * line continuations (`r\<newline>m`, `X=1\<newline>ls`) are one to bash; a plain token that still holds a
 * blank or a substitution (here-documents with `<<-`, backticks in here-documents) was not read as bash.
 */
const collect = (root: Node, source: string, out: Collector, fromInput: boolean): string | undefined => {
  const stack: Array<Node> = [root]
  /** The redirections a `redirected_statement` holds for its command (keyed by the command's node id). */
  const statementRedirects = new Map<number, ReadonlyArray<Node>>()
  // Text outside every token: blanks, or literal parts of strings and here-documents the grammar did not
  // make tokens of (where a missed substitution hides).
  let previousEnd = 0
  const gapMisread = (until: number): string | undefined => {
    if (until <= previousEnd) return undefined
    const gap = source.slice(previousEnd, until)
    if (previousEnd > 0 && gap.replace(/\\\n/g, "") === "") return "a line continuation joins two words"
    if (misread(gap, false)) return "the parser may have skipped a substitution"
    return undefined
  }
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "command_substitution" && node.text.startsWith("`") && node.text.includes("\\")) {
      const gap = gapMisread(node.startIndex)
      if (gap !== undefined) return gap
      out.nested.push({ script: backtickScript(node), origin: node.text, fromInput })
      previousEnd = node.endIndex
      continue
    }
    if (node.childCount === 0) {
      const gap = gapMisread(node.startIndex)
      if (gap !== undefined) return gap
      previousEnd = node.endIndex
      // A subscript in a quoted value is evaluated as arithmetic where the value is used as a name or a
      // number (`let 'a[$(cmd)]'`, `x='a[$(cmd)]'; echo $((x))`), and bash runs the substitution in it.
      if (VALUE_TOKENS.has(node.type) && /\[[^\]]*(\$\(|`)/.test(node.text))
        return "a subscript in a value holds a substitution that bash may run"
      switch (node.type) {
        case "word":
          if (misread(node.text, true)) return "the parser may have read a word differently from bash"
          break
        case "raw_string":
        case "ansi_c_string":
        case "comment":
        case "heredoc_start":
          break
        case "heredoc_end":
          if (!heredocEndsAlone(node, source)) return "a here-document does not end where bash ends it"
          break
        case "heredoc_body":
        case "heredoc_content":
          if (!literalHeredoc(node) && misread(node.text, false)) {
            return "a substitution in a here-document was not read"
          }
          break
        default:
          // Any other named token (string content, a regex, a pattern) cannot hold a substitution to bash:
          // one found inside it was not read.
          if (node.isNamed && misread(node.text, false)) return "the parser may have read a token differently from bash"
      }
      continue
    }
    switch (node.type) {
      case "redirected_statement": {
        const redirects = node.childrenForFieldName("redirect").filter((n): n is Node => n !== null)
        const body = node.childForFieldName("body")
        if (body?.type === "command") {
          statementRedirects.set(body.id, redirects)
          break
        }
        if (redirects.some((redirect) => redirectExtras(redirect).length > 0)) {
          return "words follow a redirection of a compound command"
        }
        break
      }
      case "command": {
        const words = commandWords(node, statementRedirects.get(node.id))
        if (words === undefined) out.subjects.push({ text: node.text, unresolved: "the command has no name" })
        else resolve(words, out, fromInput)
        break
      }
      case "declaration_command":
      case "unset_command": {
        const words = node.children.filter((n): n is Node => n !== null).map(wordOf)
        const text = words.map(shown).join(" ")
        // `declare -a 'a=($(cmd))'` parses its quoted argument again, and runs `cmd`.
        if (words.some((word) => word.value !== undefined && misread(word.value, false))) {
          out.subjects.push({ text, unresolved: "a quoted assignment holds a substitution that bash may run" })
        } else out.subjects.push({ text })
        break
      }
      case "variable_assignment": {
        const name = node.childForFieldName("name")?.text ?? ""
        if (SENSITIVE_VARIABLE.test(name)) out.subjects.push({ text: node.text, unresolved: sensitiveReason(name) })
        break
      }
      case "expansion":
        // `${x@P}` expands `x` like a prompt, running the substitutions in its value.
        if (node.text.endsWith("@P}")) return "a prompt expansion (@P) may run a substitution in a value"
        break
    }
    const children = node.children
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]
      if (child) stack.push(child)
    }
  }
  return gapMisread(source.length)
}

/** The subjects of `source`, following nested scripts; what cannot be analysed becomes an unresolved `origin`. */
const analyse = async (
  source: string,
  origin: string,
  depth: number,
  deadline: number,
  budget: { scripts: number },
  fromInput: boolean,
): Promise<ReadonlyArray<Subject>> => {
  const out: Collector = { subjects: [], nested: [] }
  const parsed = await withBashTree(source, (root) => collect(root, source, out, fromInput), {
    budgetMs: Math.max(0, deadline - performance.now()),
  })
  if (!parsed.ok) return [{ text: origin, unresolved: failureReason[parsed.failure] }]
  if (parsed.value !== undefined) return [{ text: origin, unresolved: parsed.value }]
  const subjects: Array<Subject> = [...out.subjects]
  for (const nested of out.nested) {
    if (depth >= MAX_NESTING || budget.scripts <= 0) {
      subjects.push({ text: nested.origin, unresolved: "scripts are nested too deeply to be analysed" })
      continue
    }
    budget.scripts--
    subjects.push(...(await analyse(nested.script, nested.origin, depth + 1, deadline, budget, nested.fromInput)))
  }
  return subjects
}

/**
 * The simple commands of a bash command line as permission subjects (see {@link BashCommands}). A line
 * without any command (`> file`, `X=1`) is its own single subject.
 */
export const bashCommands = async (
  line: string,
  options: { readonly budgetMs?: number } = {},
): Promise<BashCommands> => {
  const deadline = performance.now() + (options.budgetMs ?? BASH_PARSE_BUDGET_MS)
  const found = await analyse(line, line, 0, deadline, { scripts: MAX_NESTED_SCRIPTS }, false)
  const subjects: Array<string> = []
  const unresolved = new Map<string, string>()
  for (const subject of found) {
    if (!subjects.includes(subject.text)) subjects.push(subject.text)
    if (subject.unresolved !== undefined && !unresolved.has(subject.text)) {
      unresolved.set(subject.text, subject.unresolved)
    }
  }
  if (subjects.length === 0) subjects.push(line.trim())
  return { subjects, unresolved: [...unresolved].map(([subject, reason]) => ({ subject, reason })) }
}
