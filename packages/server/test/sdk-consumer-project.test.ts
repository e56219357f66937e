/**
 * The SDK and plugin packages as an outside project sees them: packed to tarballs (`bun pm pack`, which
 * builds `dist/`), installed with npm into a project in a temporary directory outside the workspace,
 * compiled with plain `tsc --strict`, and run under the system Node (20) against a live server. The
 * README's SDK example is compiled and run there too, and must exit by itself.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { before } from "./support/deadline.ts"
import { NODE, NODE_PATH, ROOT } from "./support/node.ts"
import { startTestServer } from "./support/server.ts"

const PACKAGES = fileURLToPath(new URL("../../", import.meta.url))
const FIXTURE = fileURLToPath(new URL("./fixtures/consumer/main.ts", import.meta.url))
const TYPESCRIPT = "5.9.3"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The environment of a child: the real Node first on PATH (npm and tsc are Node scripts), not Bun's stand-in. */
const env = { ...process.env, PATH: NODE_PATH, NO_COLOR: "1" }

const exec = async (cmd: ReadonlyArray<string>, cwd: string) => {
  const child = Bun.spawn([...cmd], { cwd, stdout: "pipe", stderr: "pipe", env })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${code}) in ${cwd}:\n${stderr}\n${stdout}`)
  return stdout
}

/** The README's SDK example: the first TypeScript block of its "SDK" section, pointed at `url`. */
const readmeExample = (url: string) => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("### SDK\n"))
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  if (!block || !block.includes("http://127.0.0.1:4096")) throw new Error("no SDK example in the README")
  return block.replaceAll("http://127.0.0.1:4096", url)
}

/** Packs a workspace package into `destination`; returns the tarball's path. */
const pack = async (name: string, destination: string) => {
  await exec([process.execPath, "pm", "pack", "--destination", destination, "--quiet"], join(PACKAGES, name))
  const tarball = readdirSync(destination).find((file) => file.startsWith(`opencode-ai-${name}-`))
  if (!tarball) throw new Error(`no tarball for ${name} in ${destination}`)
  return join(destination, tarball)
}

describe("a project outside the workspace", () => {
  it("installs the packed SDK and plugin, compiles with tsc --strict and talks to a live server under Node 20", async () => {
    const version = (await exec([NODE, "--version"], ROOT)).trim()
    expect(Number(/^v(\d+)\./.exec(version)?.[1])).toBeGreaterThanOrEqual(20)
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
    const tsc = (files: ReadonlyArray<string>) =>
      exec(
        [
          NODE,
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
          ...files,
        ],
        project,
      )
    await tsc(["main.ts"])

    const server = await startTestServer()
    const report = JSON.parse(await exec([NODE, join(project, "out/main.js"), server.url], project)) as {
      types: Array<string>
      replayed: Array<string>
      [key: string]: unknown
    }
    expect(report.plugin).toBe("consumer")
    expect(report.messageID).toMatch(/^msg_/)
    expect(report.types[0]).toBe("server.connected")
    expect(report.types).toContain("session.next.prompt.admitted")
    expect(report.types).toContain("session.next.text.delta")
    expect(report.types.at(-1)).toBe("session.next.turn.ended")
    // The durable replay starts at the session's creation and holds no live deltas.
    expect(report.replayed[0]).toBe("session.next.created")
    expect(report.replayed).toContain("session.next.prompt.admitted")
    expect(report.replayed).not.toContain("session.next.text.delta")
    expect(report.replayed.at(-1)).toBe("session.next.turn.ended")
    expect(report.admitted).toBe("hello from a consumer")
    expect(String(report.streamedText).length).toBeGreaterThan(0)
    expect(report.outcome).toBe("completed")
    expect(report.model).toEqual({ providerID: "offline", id: "echo" })
    expect(report.corrected).toBe("corrected by the consumer")
    expect(report.invalidReason).toMatch(/assistant/)
    expect(report.missingTag).toBe("SessionNotFoundError")
    expect(report.busyNarrowed).toBe(report.sessionID)

    // What the server stored agrees with what the consumer did.
    const { data: messages } = await server.api.session.messages({ sessionID: String(report.sessionID) })
    const answer = messages!.data.find((m) => m.type === "assistant")
    expect(answer?.type === "assistant" && answer.content.find((item) => item.type === "text")).toMatchObject({
      text: "corrected by the consumer",
    })

    // The README's SDK example, as printed there, compiles and runs to its end: breaking out of the event
    // loop closes the connection, so the process exits by itself with nothing left open.
    writeFileSync(join(project, "readme.ts"), readmeExample(server.url))
    writeFileSync(
      join(project, "globals.d.ts"),
      "declare const process: { readonly stdout: { write(text: string): boolean } }\n",
    )
    await tsc(["globals.d.ts", "readme.ts"])
    const child = Bun.spawn([NODE, join(project, "out/readme.js")], {
      cwd: project,
      stdout: "pipe",
      stderr: "pipe",
      env,
    })
    try {
      const [code, stdout, stderr] = await before(
        Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]),
        30_000,
        "the README example's process to exit by itself",
      )
      expect(code, stderr).toBe(0)
      expect(stdout).toBe("You said: hello")
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
    }
    const { data: sessions } = await server.api.session.list({ search: "demo" })
    const demo = sessions!.data.find((s) => s.title === "demo")!
    const { data: demoMessages } = await server.api.session.messages({ sessionID: demo.id })
    expect(demoMessages!.data[0]).toMatchObject({ type: "user", retracted: { by: "user" } })
    await server.stop()
  }, 240_000)
})
