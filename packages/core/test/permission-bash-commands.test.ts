import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { evaluate, type PermissionRule } from "../src/config/permission.ts"
import { bashCommands } from "../src/tool/bash-commands.ts"
import { BASH_MAX_PARSED_BYTES } from "../src/tool/bash-parser.ts"
import { tempDir } from "./support/tmp.ts"

const DENY_RM: PermissionRule = { "*": "allow", "rm *": "deny" }

/** The decision for a command line under `rule`, exactly as the permission layer computes it. */
const decide = async (line: string, rule: PermissionRule = DENY_RM) => {
  const { subjects, unresolved } = await bashCommands(line)
  return evaluate(
    "bash",
    rule,
    subjects,
    unresolved.map((u) => u.subject),
  )
}

/** Runs `line` with real bash in a fresh directory holding `x`; whether `x` is gone afterwards. */
const removesX = (line: string): boolean => {
  const dir = tempDir("oc2-bash-spelling-")
  writeFileSync(join(dir, "x"), "x")
  Bun.spawnSync(["bash", "-c", line], { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "ignore" })
  return !existsSync(join(dir, "x"))
}

/** Spellings of "run rm on x": every one of them runs `rm` in bash, and every one is denied. */
const RM_SPELLINGS = [
  "rm x",
  "  rm x",
  "/bin/rm x",
  "true; rm x",
  "echo $(rm x)",
  "X=1 rm x",
  "true\nrm x",
  "command rm x",
  "\\rm x",
  "true && rm x",
  "false || rm x",
  "ls | rm x",
  "(rm x)",
  "echo `rm x`",
  'echo "$(rm x)"',
  'echo "a `rm x` b"',
  "rm x & wait",
  "cat <(rm x)",
  "true > >(rm x); wait $!",
  "if true; then rm x; fi",
  "if false; then :; else rm x; fi",
  "while true; do rm x; break; done",
  "for f in 1; do rm x; done",
  "case a in a) rm x;; esac",
  "f() { rm x; }; f",
  "function g { rm x; }; g",
  "{ rm x; }",
  '"rm" x',
  "r''m x",
  "'r'm x",
  "builtin command rm x",
  "exec rm x",
  "env rm x",
  "env -i X=1 /bin/rm x",
  "time rm x",
  "time X=1 rm x",
  "nohup rm x",
  "nice -n 5 rm x",
  "timeout 5 rm x",
  "X=$(rm x)",
  "export Y=$(rm x)",
  "echo ${U:-$(rm x)}",
  "[[ -n $(rm x) ]]",
  "cat <<EOF\n$(rm x)\nEOF",
  "eval 'rm x'",
  'bash -c "rm x"',
  "sh -ec 'rm x'",
  "trap 'rm x' EXIT",
  "find . -maxdepth 0 -exec rm x \\;",
  "echo `echo \\`rm x\\``",
  "time 2>/dev/null rm x",
]

describe("bash permission rules see each simple command", () => {
  test.each(RM_SPELLINGS)('%j runs rm in bash and is denied by {"*":"allow","rm *":"deny"}', async (line) => {
    expect(removesX(line)).toBe(true)
    expect(await decide(line)).toBe("deny")
  })

  test.each(["ls -la", "git status", 'echo "rm x"', "grep rm file", "cat x | wc -l", "echo 'rm x' # rm x"])(
    "%j is allowed without an ask and leaves x alone",
    async (line) => {
      expect(await decide(line)).toBe("allow")
      expect(removesX(line)).toBe(false)
    },
  )

  test.each([
    ['echo "unterminated', "the command line could not be parsed"],
    ["$(", "the command line could not be parsed"],
    ["$CMD x", "the command name is not static"],
    ["$(which rm) x", "the command name is not static"],
    ['"$RM" x', "the command name is not static"],
    ["/bin/r? x", "the command name is a glob or brace pattern"],
    ["r\\\nm x", "a line continuation joins two words"],
    ['eval "$SCRIPT"', "eval of a string that is not static"],
    ["cat <<-EOF\n\t$(rm x)\n\tEOF", "a substitution in a here-document was not read"],
    ["ls | xargs rm", "its arguments are read from input (xargs)"],
    ["echo 'rm x' | bash", "the shell reads its script from input"],
    ["let 'a[$(rm x)]=1'", "a subscript in a value holds a substitution that bash may run"],
    ["x='$(rm x)'; echo ${x@P}", "a prompt expansion (@P) may run a substitution in a value"],
    ["declare -a 'a=($(rm x))'", "a quoted assignment holds a substitution that bash may run"],
    ["time { rm x; }", '"{" is a reserved word here'],
    // bash reads on to the end: the quoted `$(rm x)` is here-document text to bash, and runs.
    ["cat <<EOF\nEOF; echo '$(rm x)'", "a here-document does not end where bash ends it"],
    [". <(echo rm x)", "the script it runs is read from input or not static"],
    ["BASH_ENV=<(echo rm x) bash -c ls", "setting BASH_ENV makes bash run what it holds"],
    ["PS4='$(rm x)'; set -x; ls", "setting PS4 makes bash run what it holds"],
    ["mapfile -C 'rm x' -c 1 <<< a", "mapfile runs the command it is given"],
  ])("%j is asked even under allow-all (%s)", async (line, reason) => {
    const { unresolved } = await bashCommands(line)
    expect(unresolved.map((u) => u.reason)).toContain(reason)
    expect(await decide(line, { "*": "allow" })).toBe("ask")
    expect(await decide(line, "allow")).toBe("ask")
    // A deny still wins over an unresolved command; a plain deny rule denies everything.
    expect(await decide(line, "deny")).toBe("deny")
  })

  test.each([
    "$(echo rm) x",
    "echo 'rm x' | bash",
    "let 'a[$(rm x)]=1'",
    "x='$(rm x)'; echo ${x@P}",
    "declare -a 'a=($(rm x))'",
    "cat <<EOF\nEOF; echo '$(rm x)'",
    "cat <<-EOF\n\t$(rm x)\n\tEOF",
    ". <(echo rm x)",
    "BASH_ENV=<(echo rm x) bash -c ls",
    "PS4='$(rm x)'; set -x; ls",
    "mapfile -C 'rm x' -c 1 <<< a",
    "echo x | xargs rm",
  ])("%j runs rm in bash and, not readable statically, is asked", async (line) => {
    expect(removesX(line)).toBe(true)
    expect(await decide(line)).toBe("ask")
  })

  test("a line too long to parse is asked, not parsed", async () => {
    const line = `echo ${"a".repeat(BASH_MAX_PARSED_BYTES)}`
    const { subjects, unresolved } = await bashCommands(line)
    expect(subjects).toEqual([line])
    expect(unresolved).toEqual([{ subject: line, reason: "the command line is too long to be analysed" }])
    expect(await decide(line, { "*": "allow" })).toBe("ask")
  })

  test("a parse that exceeds its time budget is cancelled and asked", async () => {
    const line = "echo a | ".repeat(1500) + "echo b"
    const { unresolved } = await bashCommands(line, { budgetMs: 0 })
    expect(unresolved).toEqual([{ subject: line, reason: "parsing the command line took too long" }])
  })

  test("a line is denied if any command is, asked if any is asked, allowed only if all are", async () => {
    const rule: PermissionRule = { "git status*": "allow", "git diff*": "allow", "rm *": "deny", "*": "ask" }
    expect(await decide("git status && git diff --stat", rule)).toBe("allow")
    expect(await decide("git status; ls", rule)).toBe("ask")
    expect(await decide("git status; ls; rm -rf build", rule)).toBe("deny")
    expect(await decide("git diff $(ls)", rule)).toBe("ask")
  })

  test("subjects: the normalized name and the words' values, in order, once each", async () => {
    expect((await bashCommands("X=1 /usr/bin/env -i A=b /bin/rm -rf \"a b\" 'c'")).subjects).toEqual(["rm -rf a b c"])
    expect((await bashCommands("echo $(rm x) && echo $(rm x)")).subjects).toEqual(["echo $(rm x)", "rm x"])
    expect((await bashCommands('git commit -m "x; rm y" > log.txt 2>&1')).subjects).toEqual(["git commit -m x; rm y"])
    expect((await bashCommands("sudo -u root rm x")).subjects).toEqual(["sudo -u root rm x", "rm x"])
    expect((await bashCommands("command -v rm")).subjects).toEqual(["command -v rm"])
    // A line without any command is its own subject.
    expect((await bashCommands("> out.txt")).subjects).toEqual(["> out.txt"])
  })
})

/** A small deterministic random source (mulberry32), so a failing line names its seed. */
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/**
 * Random bash lines built from the constructs above, with `rm x` (in many spellings) hidden at random
 * depths among harmless commands. Most lines are valid bash; some are not, which is fine: bash then runs
 * nothing, or part of the line.
 */
const randomLine = (random: () => number): string => {
  const pick = <T>(items: ReadonlyArray<T>): T => items[Math.floor(random() * items.length)]!
  const rmName = () => pick(["rm", "/bin/rm", "\\rm", '"rm"', "r''m", "'r'm", "r\\m", "$'rm'", 'r"m"'])
  const prefix = () => pick(["", "", "X=1 ", "command ", "env -i ", "exec ", "builtin ", "nohup ", "time "])
  const escapeFor = (text: string, chars: RegExp) => text.replace(chars, "\\$1")
  const quoteSingle = (text: string) => `'${text.replaceAll("'", "'\\''")}'`
  const word = (depth: number): string => {
    if (depth > 2 || random() < 0.4) return pick(["a", "x", "'rm x'", '"rm x"', "$HOME", "-n", "*.none", "\\$(rm x)"])
    return pick([
      () => `$(${list(depth + 1)})`,
      () => `"$(${list(depth + 1)})"`,
      () => `\`${escapeFor(list(depth + 1), /([\\`$])/g)}\``,
      () => `<(${list(depth + 1)})`,
      () => `\${U:-$(${list(depth + 1)})}`,
      () => `a$(${list(depth + 1)})b`,
    ])()
  }
  const simple = (depth: number): string => {
    if (random() < 0.15) return `${prefix()}${rmName()} ${pick(["x", "-f x", "-- x", "./x"])}`
    let text = pick(["echo", "true", "cat", ":", "printf", "ls", "wc"])
    const count = Math.floor(random() * 3)
    for (let i = 0; i < count; i++) text += ` ${pick(["", "", ">/dev/null ", "2>&1 "])}${word(depth)}`
    return text
  }
  const statement = (depth: number): string => {
    if (depth > 2) return simple(depth)
    return pick([
      () => `(${list(depth + 1)})`,
      () => `{ ${list(depth + 1)}; }`,
      () => `if ${list(depth + 1)}; then ${list(depth + 1)}; else ${list(depth + 1)}; fi`,
      () => `while ${list(depth + 1)}; do ${list(depth + 1)}; break; done`,
      () => `for i in 1 2; do ${list(depth + 1)}; done`,
      () => `case a in a) ${list(depth + 1)};; esac`,
      () => `f() { ${list(depth + 1)}; }; f`,
      () => `cat <<EOF\n$(${list(depth + 1)})\nEOF`,
      () => `eval ${quoteSingle(list(depth + 1))}`,
      () => `bash -c ${quoteSingle(list(depth + 1))}`,
      () => `X=$(${list(depth + 1)})`,
      () => `! ${simple(depth)}`,
      () => simple(depth),
      () => simple(depth),
      () => simple(depth),
    ])()
  }
  const list = (depth: number): string => {
    let text = statement(depth)
    const more = Math.floor(random() * (depth === 0 ? 3 : 2))
    for (let i = 0; i < more; i++) text += pick([" ; ", " && ", " || ", " | ", "\n", ";", "|"]) + statement(depth)
    return text
  }
  return list(0)
}

describe("bash permission rules against real bash", () => {
  test("no line whose run removes x is allowed (200 seeded random lines)", async () => {
    let removed = 0
    let allowed = 0
    for (let seed = 1; seed <= 200; seed++) {
      const line = randomLine(mulberry32(seed))
      const decision = await decide(line)
      if (decision === "allow") allowed++
      if (decision === "deny") continue // not run: whatever it would do
      if (!removesX(line)) continue
      removed++
      expect(decision, `seed ${seed}: ${JSON.stringify(line)} removed x`).not.toBe("allow")
    }
    // The property is not vacuous: some lines ran rm, and some were allowed (and so were run and checked).
    expect(removed).toBeGreaterThan(10)
    expect(allowed).toBeGreaterThan(10)
  })
})
