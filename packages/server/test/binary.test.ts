import { Database } from "bun:sqlite"
import { createOpencodeClient } from "@opencode-ai/sdk"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { buildBinary } from "../script/build-binary.ts"
import { LISTENING, readRest, readUntil, runCli, spawnCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"

/** The compiled `opencode2`, built once for this file into a temporary directory. */
let binary: string
beforeAll(async () => {
  binary = await buildBinary(join(tempDir("oc2-binary-"), "opencode2"))
}, 120_000)

/** `opencode2 serve --port 0 --db PATH` from the binary; resolves with its URL once it listens. */
const serve = async (cwd: string, db: string) => {
  const child = spawnCli(["serve", "--port", "0", "--db", db], { cwd, command: [binary] })
  const { text, reader } = await readUntil(child.stdout, (out) => LISTENING.test(out))
  const match = LISTENING.exec(text)
  if (!match)
    throw new Error(`serve exited (${await child.exited}) before listening: ${await new Response(child.stderr).text()}`)
  const rest = readRest(reader)
  return { child, url: match[1]!, stdout: async () => text + (await rest) }
}

const hasTmux = spawnSync("tmux", ["-V"]).status === 0

describe("the compiled opencode2 binary", () => {
  it.skipIf(!hasTmux)(
    "opens the terminal UI with no command (native core embedded), answers, and exits on Ctrl-C twice",
    async () => {
      const cwd = tempDir()
      const socket = `oc2-binary-tui-${process.pid}`
      const tmux = (...args: Array<string>) => spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" })
      const script = join(cwd, "run.sh")
      writeFileSync(
        script,
        `#!/bin/sh\ncd '${cwd}'\nexport HOME='${cwd}' XDG_DATA_HOME='${cwd}/data' XDG_CONFIG_HOME='${cwd}/config' OPENCODE_CONFIG= OPENCODE_DB=\n'${binary}' --db '${cwd}/tui.db' 2>'${cwd}/stderr'\necho "TUI-EXITED $?"\nexec sleep 600\n`,
        { mode: 0o755 },
      )
      expect(tmux("new-session", "-d", "-s", "tui", "-x", "100", "-y", "30", script).status).toBe(0)
      const waitFor = async (text: string) => {
        const end = Date.now() + 30_000
        for (;;) {
          const screen = tmux("capture-pane", "-p", "-t", "tui").stdout
          if (screen.includes(text)) return screen
          if (Date.now() > end) throw new Error(`timed out waiting for ${text}:\n${screen}`)
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
      }
      try {
        await waitFor("local host")
        await waitFor("idle")
        tmux("send-keys", "-t", "tui", "-l", "hello from the binary")
        tmux("send-keys", "-t", "tui", "Enter")
        await waitFor("You said: hello from the binary")
        tmux("send-keys", "-t", "tui", "C-c")
        await waitFor("Ctrl+C again to exit")
        tmux("send-keys", "-t", "tui", "C-c")
        await waitFor("TUI-EXITED 0")
      } finally {
        tmux("kill-server")
      }
    },
  )

  it("serves a turn through the SDK, stops cleanly on SIGTERM, and keeps the turn in the database", async () => {
    expect(existsSync(binary)).toBe(true)
    const cwd = tempDir()
    mkdirSync(join(cwd, "config"), { recursive: true })
    const db = join(cwd, "data", "binary.db")

    const first = await serve(cwd, db)
    const client = createOpencodeClient({ baseUrl: first.url }).v2
    expect((await client.health.get()).data?.healthy).toBe(true)
    // The web client is inside the binary: its page and every chunk the page names, nothing beside it.
    const html = await (await fetch(`${first.url}/session/ses_0123`)).text()
    expect(html).toContain('<div id="app">')
    const chunks = html.match(/\/chunk-[0-9A-Za-z_-]+\.(?:js|css)/g) ?? []
    expect(chunks.length).toBeGreaterThanOrEqual(2)
    for (const chunk of chunks) expect((await fetch(`${first.url}${chunk}`)).status, chunk).toBe(200)
    const session = (await client.session.create({ title: "compiled", location: { directory: cwd } })).data!.data
    const admitted = (await client.session.prompt({ sessionID: session.id, prompt: { text: "from the binary" } })).data!
      .data
    await client.session.wait({ sessionID: session.id })
    expect((await client.session.get({ sessionID: session.id })).data?.data.status).toBe("idle")
    const messages = (await client.session.messages({ sessionID: session.id })).data!.data
    expect(messages.map((m) => m.type)).toEqual(["user", "assistant"])
    expect(messages[1]).toMatchObject({
      type: "assistant",
      model: { providerID: "offline", id: "echo" },
      content: [{ id: expect.stringMatching(/^prt_/), type: "text", text: "You said: from the binary" }],
    })

    first.child.kill("SIGTERM")
    expect(await first.child.exited).toBe(0)
    expect((await first.stdout()).trim().split("\n")).toEqual([`opencode2 listening on ${first.url}`])

    // The file holds the turn...
    const sqlite = new Database(db, { readonly: true })
    try {
      const rows = sqlite
        .query<{ id: string; type: string }, [string]>(
          "SELECT id, type FROM session_message WHERE session_id = ? ORDER BY seq",
        )
        .all(session.id)
      expect(rows.map((r) => r.type)).toEqual(["user", "assistant"])
      expect(rows[0]!.id).toBe(admitted.id)
    } finally {
      sqlite.close()
    }

    // ...and a second start of the binary on it serves the same transcript.
    const second = await serve(cwd, db)
    const again = createOpencodeClient({ baseUrl: second.url }).v2
    expect((await again.session.messages({ sessionID: session.id })).data!.data).toEqual(messages)
    second.child.kill("SIGTERM")
    expect(await second.child.exited).toBe(0)

    // The other commands run from the binary too.
    const list = await runCli(["session", "list", "--db", db], { cwd, command: [binary] })
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(new RegExp(`^${session.id} +compiled +idle `))
    const run = await runCli(["run", "once more", "--session", session.id, "--db", db], { cwd, command: [binary] })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toBe("You said: once more\n")
  })

  it("reads bash command lines for the permission rules with the tree-sitter grammar embedded in it", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "opencode.json"),
      JSON.stringify({ permission: { bash: { "*": "allow", "rm *": "deny" } } }),
    )
    writeFileSync(join(cwd, "keep.txt"), "keep\n")
    const calls = ["echo made > made.txt", "true; rm keep.txt"].map(
      (command) => `/tool bash ${JSON.stringify({ command })}`,
    )
    const run = await runCli(["run", calls.join("\n"), "--db", join(cwd, "data", "bash.db")], {
      cwd,
      command: [binary],
    })
    expect(run.code, run.stderr).toBe(0)
    // Allowed without an ask (there is no terminal: an ask would have been rejected), so the line was parsed;
    // the rm hidden behind `true;` was denied.
    expect(readFileSync(join(cwd, "made.txt"), "utf8")).toBe("made\n")
    expect(readFileSync(join(cwd, "keep.txt"), "utf8")).toBe("keep\n")
    expect(run.stderr).toContain("permission denied")
  })

  it("converts a fetched HTML page to markdown in the worker embedded in it", async () => {
    const cwd = tempDir()
    const page = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response("<h1>Embedded</h1><p>a <em>page</em></p>", { headers: { "content-type": "text/html" } }),
    })
    try {
      writeFileSync(
        join(cwd, "opencode.json"),
        JSON.stringify({ webfetch: { allowHosts: ["127.0.0.1"] }, permission: { webfetch: "allow" } }),
      )
      const call = `/tool webfetch ${JSON.stringify({ url: `http://127.0.0.1:${page.port}/` })}`
      const run = await runCli(["run", call, "--db", join(cwd, "data", "fetch.db")], { cwd, command: [binary] })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toContain("✓ webfetch")
      expect(run.stderr).toContain("# Embedded")
    } finally {
      await page.stop(true)
    }
  })
})
