import { realpathSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "./support/cli.ts"
import { tempDir, writeFileAt } from "./support/tmp.ts"

describe("opencode2 run with commands and skills", () => {
  it("expands a project command that has the offline model load a global skill ($XDG_CONFIG_HOME/opencode2/skill)", async () => {
    const cwd = realpathSync(tempDir())
    // `isolatedEnv` puts XDG_CONFIG_HOME at <cwd>/config.
    writeFileAt(
      join(cwd, "config/opencode2/skill/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: How to deploy\n---\nDEPLOY-STEPS: run make ship\n",
    )
    writeFileAt(
      join(cwd, ".opencode/command/use.md"),
      '---\ndescription: Use a skill\n---\nPlease.\n/tool skill {"name":"$1"}\n',
    )
    const run = await runCli(["run", "/use deploy", "--db", join(cwd, "data", "run.db")], { cwd })
    expect(run.code).toBe(0)
    // The tool call is reported on stderr as it runs: allowed, with its first line of output.
    expect(run.stderr).toContain('✓ skill {"name":"deploy"}')
    // The offline model saw the expanded template (its plain line, then the tool line), and the tool's first line.
    expect(run.stdout).toContain("You said: Please.")
    expect(run.stdout).toContain('skill returned: <skill name="deploy">')

    // A name that is no command reaches the model as typed.
    const plain = await runCli(["run", "/nothing here", "--db", join(cwd, "data", "run.db")], { cwd })
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain("You said: /nothing here")

    // A command whose file is broken is sent as typed too, and stderr says why.
    writeFileAt(join(cwd, ".opencode/command/broken.md"), "---\nagent: [oops\n---\nNever used")
    const broken = await runCli(["run", "/broken now", "--db", join(cwd, "data", "run.db")], { cwd })
    expect(broken.code).toBe(0)
    expect(broken.stdout).toContain("You said: /broken now")
    expect(broken.stderr).toContain(
      `/broken is sent as typed: its command file ${join(cwd, ".opencode/command/broken.md")}`,
    )
  })
})
