/**
 * The SDK and plugin packages as an outside project sees them: packed to tarballs (`bun pm pack`, which
 * builds `dist/`), installed with npm into a project in a temporary directory outside the workspace,
 * compiled with plain `tsc --strict`, and run under the system Node against a live server.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync, copyFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { startTestServer } from "./support/server.ts"

const PACKAGES = fileURLToPath(new URL("../../", import.meta.url))
const FIXTURE = fileURLToPath(new URL("./fixtures/consumer/main.ts", import.meta.url))
const TYPESCRIPT = "5.9.3"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const exec = async (cmd: ReadonlyArray<string>, cwd: string) => {
  const child = Bun.spawn([...cmd], { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${code}) in ${cwd}:\n${stderr}\n${stdout}`)
  return stdout
}

/** Packs a workspace package into `destination`; returns the tarball's path. */
const pack = async (name: string, destination: string) => {
  await exec([process.execPath, "pm", "pack", "--destination", destination, "--quiet"], join(PACKAGES, name))
  const tarball = readdirSync(destination).find((file) => file.startsWith(`opencode-ai-${name}-`))
  if (!tarball) throw new Error(`no tarball for ${name} in ${destination}`)
  return join(destination, tarball)
}

describe("a project outside the workspace", () => {
  it("installs the packed SDK and plugin, compiles with tsc --strict and talks to a live server under Node", async () => {
    const root = mkdtempSync(join(tmpdir(), "opencode2-consumer-"))
    dirs.push(root)
    const packs = join(root, "packs")
    const project = join(root, "project")
    await exec(["mkdir", "-p", join(packs, "sdk"), join(packs, "plugin"), join(packs, "schema"), project], root)
    // The plugin package depends on the schema package, which is not on the registry either: it is packed
    // and installed beside it.
    const [sdk, plugin, schema] = await Promise.all([
      pack("sdk", join(packs, "sdk")),
      pack("plugin", join(packs, "plugin")),
      pack("schema", join(packs, "schema")),
    ])

    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2),
    )
    // The tarballs, by path: `@opencode-ai/*` on the npm registry are upstream's v1 packages.
    await exec(
      [
        "npm",
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        sdk,
        plugin,
        schema,
        `typescript@${TYPESCRIPT}`,
      ],
      project,
    )
    copyFileSync(FIXTURE, join(project, "main.ts"))
    await exec(
      [
        "node",
        join(project, "node_modules/typescript/bin/tsc"),
        "--strict",
        // The consumer's own code is checked in full against the packages' declarations (an `any` would
        // fail the fixture's `@ts-expect-error`); the libraries' internals are not this test's subject.
        "--skipLibCheck",
        "--module",
        "nodenext",
        "--target",
        "es2022",
        "--lib",
        "es2023,dom,dom.iterable",
        "--outDir",
        "out",
        "main.ts",
      ],
      project,
    )

    const server = await startTestServer()
    const report = JSON.parse(await exec(["node", join(project, "out/main.js"), server.url], project)) as {
      types: Array<string>
      [key: string]: unknown
    }
    expect(report.plugin).toBe("consumer")
    expect(report.messageID).toMatch(/^msg_/)
    expect(report.types[0]).toBe("server.connected")
    expect(report.types).toContain("session.message.admitted")
    expect(report.types.at(-1)).toBe("session.turn.ended")
    expect(report.admitted).toBe("hello from a consumer")
    expect(String(report.streamedText).length).toBeGreaterThan(0)
    expect(report.outcome).toBe("completed")
    expect(report.corrected).toBe("corrected by the consumer")
    expect(report.invalidReason).toMatch(/assistant/)
    expect(report.missingTag).toBe("SessionNotFoundError")
    expect(report.busyNarrowed).toBe(report.sessionID)

    // What the server stored agrees with what the consumer did.
    const { data: messages } = await server.client.message.list({ path: { sessionID: String(report.sessionID) } })
    const answer = messages!.items.find((m) => m.type === "assistant")!
    expect(answer.parts.find((p) => p.type === "text")).toMatchObject({ text: "corrected by the consumer" })
    await server.stop()
  }, 240_000)
})
