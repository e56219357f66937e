/**
 * The packed packages as a project outside the workspace sees them - done-when of "plugin authors install in
 * one step". `npm run pack` (scripts/pack.mjs) writes the tarballs once, and a project in a temp dir installs
 * them with `npm install <tarballs>` and nothing else (no `overrides`: every `@opencode-ai/*` must resolve to
 * its tarball, never to npm, where those names are upstream's v1). Then, in that one install:
 * - the packed manifests point `types`/`import`/`default` at `dist/` only, with workspace ranges resolved;
 * - a plugin test passes under `bun test` and under vitest on Bun (`bun --bun vitest run`);
 * - under Node.js (the system Node, 20 here) vitest and a plain import of the kit refuse with the message
 *   naming the fix;
 * - the test files pass `tsc --strict` with the documented tsconfig (and misuse of the kit fails it);
 * - an SDK and plugin consumer compiles with plain `tsc --strict --module nodenext` and runs under Node
 *   against a live server, and so does the README's SDK example, which must exit by itself.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { before } from "./support/deadline.ts"
import { NODE, NODE_PATH, ROOT } from "./support/node.ts"
import { startTestServer } from "./support/server.ts"

const template = fileURLToPath(new URL("./fixtures/plugin-project/", import.meta.url))
const CONSUMER = fileURLToPath(new URL("./fixtures/consumer/main.ts", import.meta.url))

interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly bin?: Record<string, string>
  readonly exports?: unknown
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}
/** The Bun version `opencode2-test` installs (read from the script: importing it would run it). */
const PINNED_BUN = /PINNED_BUN = "([^"]+)"/.exec(
  readFileSync(fileURLToPath(new URL("../script/opencode2-test.mjs", import.meta.url)), "utf8"),
)![1]!
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest

const work = mkdtempSync(join(tmpdir(), "opencode2-plugin-project-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** A child's environment: the real Node first (npm and tsc are Node scripts), none of this vitest run's variables. */
const childEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(__)?VITEST|^TEST$|^NODE_ENV$/.test(key))),
  PATH: NODE_PATH,
  NO_COLOR: "1",
  FORCE_COLOR: "0",
})

const run = (command: ReadonlyArray<string>, cwd: string) => runWith(command, cwd, {})

/** PATH without the directories that hold a `bun`: a machine with only Node.js and npm. */
const withoutBun = (path: string) =>
  path
    .split(delimiter)
    .filter((dir) => !existsSync(join(dir, "bun")))
    .join(delimiter)

const runWith = async (command: ReadonlyArray<string>, cwd: string, env: Record<string, string>) => {
  const child = Bun.spawn([...command], { cwd, stdout: "pipe", stderr: "pipe", env: { ...childEnv(), ...env } })
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ])
  return { code, stdout, output: `${stdout}\n${stderr}` }
}

/** Every string an export map can resolve to, with the conditions that lead there. */
const targets = (value: unknown, path: ReadonlyArray<string> = []): Array<{ path: string; target: string }> =>
  typeof value === "string"
    ? [{ path: path.join(" > "), target: value }]
    : value && typeof value === "object"
      ? Object.entries(value).flatMap(([key, inner]) => targets(inner, [...path, key]))
      : []

const project = join(work, "my-plugin")
/** The packed package names (`sdk`, `plugin`...), once `beforeAll` has packed them. */
let names: Array<string> = []

const REFUSAL = /needs the Bun runtime[\s\S]*Node\.js \d+\.[\s\S]*`bun test` or `bun --bun vitest run`/

/** Like `run`, but a failure throws with the output; its stdout. */
const exec = async (command: ReadonlyArray<string>, cwd: string) => {
  const { code, stdout, output } = await run(command, cwd)
  if (code !== 0) throw new Error(`${command.join(" ")} failed (exit ${code}) in ${cwd}:\n${output}`)
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

beforeAll(async () => {
  const packs = join(work, "packs")
  mkdirSync(join(project, "test"), { recursive: true })

  const packed = await run([NODE, join(ROOT, "scripts/pack.mjs"), "--out", packs], ROOT)
  expect(packed.code, packed.output).toBe(0)
  const tarballs = readdirSync(packs)
    .filter((file) => file.endsWith(".tgz"))
    .map((file) => join(packs, file))
  // The sdk, the plugin and the kit's package, with every workspace package they need at run time.
  names = tarballs.map((file) => /opencode-ai-(\w+)-/.exec(file)![1]!).sort()
  expect(names).toEqual(["app", "core", "plugin", "protocol", "schema", "sdk", "server"])
  // The command the script prints is the whole installation.
  expect(packed.output).toContain("npm install ")

  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-plugin", private: true, type: "module" }))
  cpSync(join(template, "vitest.config.ts"), join(project, "vitest.config.ts"))
  cpSync(join(template, "tsconfig.json"), join(project, "tsconfig.json"))
  cpSync(join(template, "src"), join(project, "src"), { recursive: true })
  cpSync(join(template, "test/plugin.vitest.ts"), join(project, "test/plugin.test.ts"))
  cpSync(join(template, "test/types-check.ts"), join(project, "test/types-check.ts"))
  const devTools = manifestOf(join(ROOT, "packages/server")).devDependencies!
  const installed = await run(
    [
      "npm",
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--loglevel=error",
      ...tarballs,
      `vitest@${devTools.vitest}`,
      `typescript@${devTools.typescript}`,
    ],
    project,
  )
  expect(installed.code, installed.output).toBe(0)
  expect(manifestOf(project)).not.toHaveProperty("overrides")
}, 400_000)

describe("the packed packages in a project outside the workspace", () => {
  it("install from `npm run pack`'s tarballs alone and test a plugin under bun test and vitest, with tsc --strict", async () => {
    // Every `@opencode-ai/*` in the tree is one copy, from its tarball.
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; version?: string }>
    }
    const ours = Object.entries(lock.packages).filter(([path]) => path.includes("node_modules/@opencode-ai/"))
    expect(ours.map(([path]) => path).sort()).toEqual(names.map((name) => `node_modules/@opencode-ai/${name}`))
    for (const [path, entry] of ours) expect(entry.resolved, path).toMatch(/^file:.*\.tgz$/)

    // The packed manifests: code and types in dist/ only, no source conditions, no workspace ranges.
    for (const name of names) {
      const manifest = manifestOf(join(project, "node_modules/@opencode-ai", name))
      for (const { path, target } of targets(manifest.exports)) {
        expect(path, `${name}: ${path}`).not.toMatch(/\b(bun|development)\b/)
        // The web client's page is the one non-code export: an HTML file Bun bundles when it is served.
        if (!target.endsWith(".html")) expect(target, `${name}: ${path}`).toMatch(/^\.\/dist\/.*\.(js|d\.ts)$/)
      }
      for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
        expect(range, `${name} -> ${dep}`).not.toMatch(/^workspace:/)
      }
      // Built code, or the kit's Node launcher (a plain .mjs script, shipped as written).
      for (const bin of Object.values(manifest.bin ?? {}))
        expect(bin).toMatch(/^\.\/dist\/.*\.js$|^\.\/script\/opencode2-test\.mjs$/)
    }

    const bunTest = await run([process.execPath, "test"], project)
    expect(bunTest.code, bunTest.output).toBe(0)
    expect(bunTest.output).toMatch(/\b2 pass\b/)

    const vitestOnBun = await run([process.execPath, "--bun", "vitest", "run"], project)
    expect(vitestOnBun.code, vitestOnBun.output).toBe(0)
    expect(vitestOnBun.output).toMatch(/Tests\s+2 passed/)

    // `npm test` with only Node and npm on PATH: the kit's `opencode2-test` fetches its pinned Bun into the
    // user's cache (from npm, once, saying so) and runs vitest on it.
    const manifest = manifestOf(project)
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ ...manifest, scripts: { test: "opencode2-test" } }, null, 2),
    )
    const nodeOnly = await runWith(["npm", "test"], project, {
      PATH: withoutBun(NODE_PATH),
      XDG_CACHE_HOME: join(work, "cache"),
    })
    expect(nodeOnly.code, nodeOnly.output).toBe(0)
    expect(nodeOnly.output).toContain(
      `the test kit runs on Bun; installing bun@${PINNED_BUN} into ${join(work, "cache", "opencode2", `bun-${PINNED_BUN}`)}`,
    )
    expect(nodeOnly.output).toMatch(/Tests\s+2 passed/)
    expect(PINNED_BUN).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).packageManager.split("@")[1])

    // Under Node.js the kit cannot run (its host is built on Bun): both ways in say so, and what to run.
    const vitestOnNode = await run([NODE, "node_modules/vitest/vitest.mjs", "run"], project)
    expect(vitestOnNode.code).not.toBe(0)
    expect(vitestOnNode.output).toMatch(REFUSAL)
    const importOnNode = await run(
      [NODE, "--input-type=module", "-e", 'await import("@opencode-ai/server/testing")'],
      project,
    )
    expect(importOnNode.code).not.toBe(0)
    expect(importOnNode.output).toMatch(REFUSAL)

    const tsc = await run([NODE, "node_modules/typescript/bin/tsc", "-p", "tsconfig.json"], project)
    expect(tsc.output.trim()).toBe("")
    expect(tsc.code).toBe(0)
  }, 300_000)

  it("serve an SDK and plugin consumer compiled with plain tsc --strict and run under Node against a live server", async () => {
    const version = (await exec([NODE, "--version"], ROOT)).trim()
    expect(Number(/^v(\d+)\./.exec(version)?.[1])).toBeGreaterThanOrEqual(20)
    copyFileSync(CONSUMER, join(project, "main.ts"))
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
      env: childEnv(),
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
