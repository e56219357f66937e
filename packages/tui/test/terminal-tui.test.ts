/**
 * The TUI in a real terminal (tmux), against a real `serve` with the offline provider: what a person
 * types, and what the screen then shows.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { type Host, killHost, startHost } from "./support/host.ts"
import { hasTmux, openTerminal } from "./support/terminal.ts"
import { tempDir } from "./support/tmp.ts"

if (!hasTmux) console.log("skipping the terminal UI tests: tmux is not installed (apt-get install tmux)")

describe.skipIf(!hasTmux)("the TUI in a terminal", () => {
  let host: Host
  beforeAll(async () => {
    host = await startHost()
  })

  const attached = (options: { width?: number; height?: number; args?: Array<string> } = {}) =>
    openTerminal({ ...options, args: ["--attach", host.url, ...(options.args ?? [])] })

  it("shows a prompt's answer, and says it is attached", async () => {
    const term = attached()
    await term.waitFor(`attached to ${host.url}`)
    await term.waitFor("idle")
    term.type("hello from the terminal")
    term.keys("Enter")
    const screen = await term.waitFor("You said: hello from the terminal")
    expect(screen).toContain("› hello from the terminal")
    term.close()
  })

  it("a write ask answered o writes the file; answered r does not", async () => {
    const term = attached()
    await term.waitFor("idle")
    term.type('/tool write {"path":"yes.txt","content":"allowed\\n"}')
    term.keys("Enter")
    let screen = await term.waitFor("─ permission ")
    expect(screen).toContain("+allowed")
    expect(screen).toContain("always (allows every file edit (edit, write, patch) for the rest of this")
    term.type("o")
    await term.waitFor('write returned: created "yes.txt"')
    expect(readFileSync(join(term.cwd, "yes.txt"), "utf8")).toBe("allowed\n")

    term.type('/tool write {"path":"no.txt","content":"refused\\n"}')
    term.keys("Enter")
    await term.waitUntil((s) => s.includes("permission") && s.includes("+refused"), "the second ask")
    term.type("r")
    await term.waitFor(/✗ write no\.txt\s+failed/)
    await term.waitUntil((s) => !s.includes("─ permission "), "the card to close")
    expect(existsSync(join(term.cwd, "no.txt"))).toBe(false)
    term.close()
  })

  it("answers a question by its option number", async () => {
    const term = attached()
    await term.waitFor("idle")
    const question = {
      questions: [
        {
          question: "Which colour?",
          header: "colour",
          options: [
            { label: "red", description: "warm" },
            { label: "blue", description: "cool" },
          ],
        },
      ],
    }
    term.type(`/tool question ${JSON.stringify(question)}`)
    term.keys("Enter")
    const screen = await term.waitFor("2 blue")
    expect(screen).toContain("question 1/1")
    term.type("2")
    await term.waitFor("question returned: The user answered")
    // The answer is in the tool's output: select the call in the transcript and expand it.
    term.keys("Tab")
    await term.waitFor("TRANSCRIPT")
    term.keys("Up")
    await term.waitFor("▶ ✓ question")
    term.keys("Enter")
    await term.waitFor(/output[\s\S]*blue/)
    // Free text: typed into the prompt and sent with Enter, it is the answer.
    term.keys("Tab")
    await term.waitUntil((s) => !s.includes("TRANSCRIPT"), "the prompt")
    term.type(`/tool question ${JSON.stringify(question)}`)
    term.keys("Enter")
    await term.waitUntil(
      (s) => (s.match(/2 blue/g) ?? []).length === 1 && s.includes("question 1/1"),
      "the second card",
    )
    term.type("green, my own answer")
    term.keys("Enter")
    await term.waitUntil((s) => !s.includes("question 1/1"), "the card to close")
    term.keys("Tab")
    await term.waitFor("TRANSCRIPT")
    term.keys("Up")
    await term.waitFor("▶ ✓ question")
    term.keys("Enter")
    await term.waitFor(/output[\s\S]*green, my own answer/)
    term.close()
  })

  it("switches sessions from the session list", async () => {
    const term = attached()
    await term.waitFor("idle")
    const other = await host.client.v2.session.create({ location: { directory: host.dir } } as never)
    const otherID = (other.data as { data: { id: string } }).data.id
    await host.client.v2.session.update({ sessionID: otherID, title: "the other session" })
    await host.client.v2.session.prompt({ sessionID: otherID, prompt: { text: "words of the other session" } } as never)
    term.keys("C-s")
    await term.waitFor("the other session")
    term.type("other sess")
    term.keys("Enter")
    await term.waitFor("You said: words of the other session")
    term.close()
  })

  it("keeps a usable layout at 60x20 and 200x60, and says when the terminal is too small", async () => {
    const term = attached({ width: 100, height: 30 })
    await term.waitFor("idle")
    term.resize(60, 20)
    let screen = await term.waitUntil((s) => s.split("\n")[0]!.length <= 60 && s.includes("idle"), "a 60x20 layout")
    expect(screen).toContain("Ask anything")
    term.resize(200, 60)
    screen = await term.waitUntil((s) => s.split("\n").length >= 60 && s.includes("idle"), "a 200x60 layout")
    expect(screen).toContain("Ask anything")
    term.resize(30, 8)
    await term.waitFor("Terminal too small (30x8)")
    term.resize(80, 24)
    await term.waitUntil((s) => s.includes("idle") && !s.includes("too small"), "the layout back")
    term.close()
  })

  it("shows a banner while the server is gone and carries on when it is back", async () => {
    const own = await startHost()
    const port = Number(new URL(own.url).port)
    const term = openTerminal({ args: ["--attach", own.url] })
    await term.waitFor("idle")
    term.type("before the outage")
    term.keys("Enter")
    await term.waitFor("You said: before the outage")
    await killHost(own)
    await term.waitFor("connection lost")
    const back = await startHost({ dir: own.dir, db: own.db, port })
    await term.waitUntil((s) => !s.includes("connection lost"), "the banner to go")
    term.type("after the outage")
    term.keys("Enter")
    const screen = await term.waitFor("You said: after the outage")
    expect(screen.match(/You said: before the outage/g)).toHaveLength(1)
    term.close()
    await killHost(back)
  })

  it("retracts a message from the transcript after confirming, and completes @file in the session directory", async () => {
    const term = attached()
    await term.waitFor("idle")
    writeFileSync(join(term.cwd, "notes-for-completion.txt"), "x")
    term.type("a secret to take back")
    term.keys("Enter")
    await term.waitFor("You said: a secret to take back")
    term.keys("Tab")
    await term.waitFor("TRANSCRIPT")
    term.keys("Up")
    await term.waitFor("▶ › a secret to take back")
    term.type("x")
    const confirm = await term.waitFor("retract this message?")
    expect(confirm).toContain("The model no longer sees it")
    term.type("y")
    const screen = await term.waitFor(" retracted ")
    expect(screen).not.toContain("› a secret to take back")
    term.keys("Tab")
    await term.waitUntil((s) => !s.includes("TRANSCRIPT"), "the prompt focused")
    term.type("read @notes-for")
    await term.waitFor("@notes-for-completion.txt")
    term.keys("Tab")
    await term.waitFor("│read @notes-for-completion.txt")
    term.close()
  })

  it("stages a revert from the transcript (the file is restored), clears it, and forks from a message", async () => {
    const term = attached()
    await term.waitFor("idle")
    term.type('/tool write {"path":"r.txt","content":"v1\\n"}')
    term.keys("Enter")
    await term.waitFor("─ permission ")
    term.type("o")
    await term.waitFor('write returned: created "r.txt"')
    const file = join(term.cwd, "r.txt")
    expect(readFileSync(file, "utf8")).toBe("v1\n")
    term.keys("Tab")
    await term.waitFor("TRANSCRIPT")
    term.keys("Up", "Up")
    await term.waitFor("▶ › /tool write")
    term.type("v")
    await term.waitFor("revert to before this message?")
    term.type("y")
    const staged = await term.waitFor("staged revert")
    expect(staged).toMatch(/r\.txt/)
    expect(existsSync(file)).toBe(false)
    term.keys("Down")
    term.keys("Enter")
    await term.waitFor('write returned: created "r.txt"')
    expect(readFileSync(file, "utf8")).toBe("v1\n")
    // Fork from the prompt: a new session holding the transcript up to it.
    term.keys("Tab")
    await term.waitUntil((s) => !s.includes("TRANSCRIPT"), "the prompt")
    term.keys("Tab")
    await term.waitFor("TRANSCRIPT")
    term.keys("Up", "Up")
    await term.waitFor("▶ › /tool write")
    term.type("f")
    const forked = await term.waitFor("forked from")
    expect(forked).toContain("› /tool write")
    expect(forked).not.toContain("write returned")
    term.close()
  })

  it("shows a todowrite in the todo panel, and Esc interrupts a running tool", async () => {
    const term = attached()
    await term.waitFor("idle")
    const todos = [
      { content: "write the tests", status: "in_progress", priority: "high" },
      { content: "ship it", status: "pending", priority: "low" },
    ]
    term.type(`/tool todowrite ${JSON.stringify({ todos })}`)
    term.keys("Enter")
    const panel = await term.waitFor("─ todo ")
    expect(panel).toContain("◐ write the tests")
    expect(panel).toContain("☐ ship it")
    await term.waitFor("todowrite returned")
    term.type('/tool bash {"command":"sleep 120 && echo finished"}')
    term.keys("Enter")
    await term.waitFor("─ permission ")
    term.type("o")
    await term.waitUntil((s) => !s.includes("─ permission ") && /running/.test(s), "the bash call running")
    term.keys("Escape")
    // The sleep has two minutes left: the turn ending now is the interrupt's doing.
    const screen = await term.waitFor(/· idle ·/)
    expect(screen).toContain("interrupted")
    expect(screen).not.toContain("bash returned: finished")
    term.close()
  })

  it("compacts on /compact, and /prune and /erase say what is lost before acting (n keeps it)", async () => {
    const term = attached()
    await term.waitFor("idle")
    term.type("/think a private chain of thought")
    term.keys("Enter")
    await term.waitFor("Nothing to answer.")
    term.type("/compact")
    term.keys("Enter")
    await term.waitFor(/── compacted \(\w+\) ──/)
    await term.waitFor(/· idle ·/)
    term.type("/prune")
    term.keys("Enter")
    let screen = await term.waitFor("prune the whole session?")
    expect(screen).toContain("Every tool output and reasoning text of this session is removed for good")
    term.type("n")
    screen = await term.waitUntil((s) => !s.includes("prune the whole session?"), "the confirmation closed")
    expect(screen).not.toContain("pruned ")
    expect(screen).not.toMatch(/removed\s+reasoning/)
    term.type("/prune")
    term.keys("Enter")
    await term.waitFor("prune the whole session?")
    term.type("y")
    screen = await term.waitFor(/pruned \d+ items/)
    expect(screen).not.toContain("pruned 0 items")
    await term.waitFor(/removed\s+reasoning/)
    term.type("/erase")
    term.keys("Enter")
    screen = await term.waitFor("erase superseded content?")
    expect(screen).toContain("is erased from the journal")
    term.keys("Escape")
    screen = await term.waitUntil((s) => !s.includes("erase superseded content?"), "the confirmation closed")
    expect(screen).not.toContain("erased")
    term.type("/erase")
    term.keys("Enter")
    await term.waitFor("erase superseded content?")
    term.type("y")
    await term.waitFor("erased")
    term.close()
  })

  it("shows a sub-agent's permission ask and answers it from the parent session", async () => {
    const term = attached()
    await term.waitFor("idle")
    const task = {
      description: "write a file",
      prompt: '/tool write {"path":"child.txt","content":"from the child\\n"}',
      subagent_type: "general",
    }
    term.type(`/tool task ${JSON.stringify(task)}`)
    term.keys("Enter")
    const screen = await term.waitFor("─ permission ")
    expect(screen).toContain("write child.txt")
    term.type("o")
    await term.waitFor("task returned")
    expect(readFileSync(join(term.cwd, "child.txt"), "utf8")).toBe("from the child\n")
    term.close()
  })

  it("names the key a model needs when the switch is refused", async () => {
    const cwd = tempDir("oc2-tui-keyless-")
    writeFileSync(
      join(cwd, "opencode.json"),
      JSON.stringify({ provider: { anthropic: { models: { "claude-sonnet-4": {} } } } }),
    )
    const term = openTerminal({ cwd, args: ["--db", join(cwd, "own.db")], env: { ANTHROPIC_API_KEY: "" } })
    await term.waitFor("idle")
    term.type("/model")
    term.keys("Enter")
    await term.waitFor("key ANTHROPIC_API_KEY")
    term.type("claude-sonnet-4")
    await term.waitFor("search: claude-sonnet-4")
    term.keys("Enter")
    await term.waitFor(/failed: [^\n]*needs an API key[\s\S]*ANTHROPIC_API_KEY/)
    term.close()
  })

  it("Ctrl-C twice exits with an in-process host and restores the terminal", async () => {
    const dir = openTerminal({ args: ["--db", join(host.dir, "own.db")] })
    await dir.waitFor("local host")
    await dir.waitFor("idle")
    dir.keys("C-c")
    await dir.waitFor("Ctrl+C again to exit")
    dir.keys("C-c")
    const { code, restored } = await dir.afterExit()
    expect(code).toBe(0)
    expect(restored).toBe(true)
    dir.close()
  })

  it("/exit leaves the TUI and restores the terminal", async () => {
    const term = attached()
    await term.waitFor("idle")
    term.type("/exit")
    term.keys("Enter")
    const { code, restored } = await term.afterExit()
    expect(code).toBe(0)
    expect(restored).toBe(true)
    term.close()
  })
})
