/**
 * The live regression harness for `session.preflight` and system-part provenance (upstream thread 004):
 * a real `opencode2 serve` child process, an OpenAI-compatible streaming provider in this test process,
 * and two plugins loaded from files through `OPENCODE_CONFIG`:
 *
 *   - `fixtures/guard.ts` adds a system part of its own;
 *   - `fixtures/ownership.ts` owns the agent's configured system text: it seeds per-session state in
 *     `preflight`, replaces exactly the part whose origin is `{ type: "agent", agentID }` with its marker
 *     region, and fails closed (throws) when it cannot prove ownership.
 *
 * Two sessions share one agent. The server is SIGKILLed while both sessions' requests are held mid-stream
 * and started again on the same database with the same config. Each resumed session's first request must
 * run `preflight` with reason "resume" before its context, and succeed with the owned region and the
 * guard's part in the system prompt the provider receives; the next ordinary prompt must succeed too. Both
 * plugins append what they saw to the file named by `OWNERSHIP_LOG`, which is how the test sees inside the
 * child. The scenario runs 20 times in a row, each time on a fresh database.
 *
 * A control run seeds the state at prompt admission instead (what plugins had to do before `preflight`):
 * the harness must then see the thread's failure — the resumed request fails closed, the next prompt heals.
 */
import { RESTART_NOTICE } from "@opencode-ai/core"
import type { OpencodeClient, SessionMessage, SessionMessageAssistant } from "@opencode-ai/sdk/v2"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenAIServer, startOpenAIServer } from "../../core/test/support/openai-server.ts"
import { GUARD_PART_ID, GUARD_TEXT } from "./fixtures/guard.ts"
import { type HarnessLogLine, LOG_ENV, readHarnessLog } from "./fixtures/harness-log.ts"
import { OWNED_END, OWNED_START, OWNERSHIP_ERROR, ownedRegion } from "./fixtures/ownership.ts"
import { listAll } from "./support/e2e-events.ts"
import { type ServeChild, spawnServe } from "./support/e2e-serve.ts"
import { fixture, localProviderConfig, systemText } from "./support/e2e-setup.ts"
import { tempDir } from "./support/tmp.ts"

const ITERATIONS = 20
const AGENT = "build"
const AGENT_SYSTEM = "NATIVE AGENT SYSTEM TEXT: you are the build agent of this project."

let provider: OpenAIServer
beforeAll(async () => {
  provider = await startOpenAIServer()
})
afterAll(() => provider.close())

type ChatRequest = { messages: Array<{ role: string; content: unknown }> }

interface Run {
  readonly dir: string
  readonly database: string
  readonly config: string
  readonly log: string
  readonly env: Record<string, string>
}

const prepare = (seed: "preflight" | "prompt"): Run => {
  const dir = tempDir("oc2-harness-")
  const run = {
    dir,
    database: join(dir, "opencode.db"),
    config: join(dir, "opencode.json"),
    log: join(dir, "ownership.jsonl"),
  }
  writeFileSync(
    run.config,
    JSON.stringify(
      localProviderConfig(provider.url, {
        agent: { [AGENT]: { system: AGENT_SYSTEM } },
        // The guard runs first, so the ownership plugin meets another plugin's part it must leave alone.
        plugin: [fixture("guard.ts"), fixture("ownership.ts")],
      }),
    ),
  )
  return { ...run, env: { [LOG_ENV]: run.log, OWNERSHIP_SEED: seed } }
}

const serve = (run: Run) => spawnServe({ database: run.database, config: run.config, cwd: run.dir, env: run.env })

/** Fails with a readable message (the loop collects these per iteration). */
const check = (condition: boolean, message: string, detail?: unknown) => {
  if (!condition) throw new Error(detail === undefined ? message : `${message}: ${JSON.stringify(detail)}`)
}

/** The provider request that carries this session's owned region, among `requests`. */
const requestFor = (requests: ReadonlyArray<ChatRequest>, sessionID: string) =>
  requests.filter((r) => systemText(r).includes(ownedRegion(sessionID, AGENT)))

/** The system prompt must hold exactly the owned region (in place of the agent's text) and the guard's part. */
const checkSystem = (request: ChatRequest, sessionID: string, what: string) => {
  const system = systemText(request)
  const owned = `${OWNED_START}\n${ownedRegion(sessionID, AGENT)}\n${OWNED_END}`
  check(system.includes(owned), `${what}: owned region in the system prompt`, system)
  check(system.includes(GUARD_TEXT), `${what}: the guard's part in the system prompt`, system)
  check(!system.includes(AGENT_SYSTEM), `${what}: the agent's native text was replaced`, system)
  check(system.split(OWNED_START).length === 2, `${what}: exactly one owned region`, system)
}

/** The ownership plugin's and guard's lines for one session from one server process. */
const linesOf = (log: ReadonlyArray<HarnessLogLine>, pid: number, sessionID: string) =>
  log.filter((line) => line.pid === pid && line.sessionID === sessionID)

/** The host's and plugins' view of one request: preflight first, then guard, then ownership succeeding. */
const checkRequestLines = (lines: ReadonlyArray<HarnessLogLine>, reason: string, what: string) => {
  const [preflight, guard, context] = lines
  check(preflight?.hook === "preflight" && preflight.plugin === "ownership", `${what}: preflight runs first`, lines)
  check(
    preflight!.reason === reason && preflight!.step === 1 && preflight!.agentID === AGENT,
    `${what}: preflight reason ${reason}, step 1`,
    preflight,
  )
  check(guard?.plugin === "guard" && guard.hook === "context", `${what}: then the guard's context`, lines)
  check(
    context?.plugin === "ownership" && context.hook === "context" && context.ok === true,
    `${what}: then ownership proven in context`,
    lines,
  )
  check(context!.step === 1, `${what}: context belongs to the preflight's step`, context)
  const system = context!.system ?? []
  check(
    JSON.stringify(system) ===
      JSON.stringify([
        { id: `agent:${AGENT}`, origin: { type: "agent", agentID: AGENT } },
        { id: GUARD_PART_ID, origin: { type: "plugin", pluginID: "guard" } },
      ]),
    `${what}: the ownership plugin saw the agent part and the guard's part, with host-assigned origins`,
    system,
  )
}

const lastAssistant = (messages: ReadonlyArray<SessionMessage>) =>
  [...messages].reverse().find((m): m is SessionMessageAssistant => m.type === "assistant")

/** Starts a server, opens two sessions on one agent, and SIGKILLs it while both requests are held mid-stream. */
const killMidStream = async (run: Run, iteration: number) => {
  const first = await serve(run)
  try {
    const plugins = (await first.api.plugin.list()).data?.data ?? []
    check(
      plugins.length === 2 && plugins.every((p) => p.status === "loaded"),
      "both plugins load from their files",
      plugins,
    )
    const sessions: Array<string> = []
    for (const name of ["alpha", "beta"]) {
      const created = await first.api.session.create({ location: { directory: run.dir }, agent: AGENT, title: name })
      check(created.data !== undefined, "session created", created.error)
      sessions.push(created.data!.data.id)
    }
    const from = provider.requests.length
    const aborted = provider.aborted
    provider.enqueue(
      { text: "working on it, step one of many", hold: true },
      { text: "working on it, step one of many", hold: true },
    )
    for (const [i, sessionID] of sessions.entries()) {
      const admitted = await first.api.session.prompt({
        sessionID,
        prompt: { text: `iteration ${iteration}: task ${i}` },
      })
      check(admitted.error === undefined, "prompt admitted", admitted.error)
    }
    await provider.held(2)
    // Before the kill both sessions' requests were owned too (seeded by preflight or by the prompt hook).
    for (const sessionID of sessions) {
      const requests = requestFor(provider.requests.slice(from), sessionID)
      check(requests.length === 1, "one held request per session before the kill", requests.length)
      checkSystem(requests[0]!, sessionID, "before the kill")
    }
    await first.kill()
    await provider.waitForAborted(aborted + 2)
    return { sessions, pid: first.pid }
  } catch (error) {
    await first.kill()
    throw error
  }
}

/** Prompts every session once more and returns the provider requests those turns made. */
const promptAgain = async (client: OpencodeClient, sessions: ReadonlyArray<string>, iteration: number) => {
  const from = provider.requests.length
  for (const sessionID of sessions) {
    const admitted = await client.v2.session.prompt({
      sessionID,
      prompt: { text: `iteration ${iteration}: carry on` },
    })
    check(admitted.error === undefined, "next prompt admitted", admitted.error)
  }
  for (const sessionID of sessions) await client.v2.session.wait({ sessionID })
  return provider.requests.slice(from) as Array<ChatRequest>
}

/** One full kill-and-restart scenario with preflight seeding; throws on the first broken expectation. */
const scenario = async (iteration: number) => {
  const run = prepare("preflight")
  const { sessions, pid: killed } = await killMidStream(run, iteration)
  const afterKill = provider.requests.length
  let second: ServeChild | undefined
  try {
    second = await serve(run)
    const client = second.client
    for (const sessionID of sessions) await client.v2.session.wait({ sessionID })
    const log = readHarnessLog(run.log)
    const resumedRequests = provider.requests.slice(afterKill) as Array<ChatRequest>
    for (const sessionID of sessions) {
      // Inside the killed process: preflight(prompt) then the owned context.
      checkRequestLines(linesOf(log, killed, sessionID), "prompt", "first process")
      // Inside the restarted process: the resumed request's preflight(resume) came before its context.
      checkRequestLines(linesOf(log, second.pid, sessionID), "resume", "resumed request")
      // The provider received it, with the owned region and the guard's part, after the restart notice.
      const requests = requestFor(resumedRequests, sessionID)
      check(requests.length === 1, "the resumed turn made one request", requests.length)
      checkSystem(requests[0]!, sessionID, "resumed request")
      check(
        JSON.stringify(requests[0]!.messages).includes(RESTART_NOTICE),
        "the resumed request carries the restart notice",
      )
      const info = (await client.v2.session.get({ sessionID })).data?.data
      check(info?.status === "idle", "resumed session is idle", info)
      const answer = lastAssistant(await listAll(client, sessionID))
      check(answer?.error === undefined && answer?.finish === "stop", "the resumed turn succeeded", answer)
    }

    // The next ordinary prompt succeeds too, with preflight(prompt) before its context.
    const logged = readHarnessLog(run.log).length
    const next = await promptAgain(client, sessions, iteration)
    const nextLog = readHarnessLog(run.log).slice(logged)
    for (const sessionID of sessions) {
      checkRequestLines(linesOf(nextLog, second.pid, sessionID), "prompt", "next prompt")
      const requests = requestFor(next, sessionID)
      check(requests.length === 1, "the next prompt made one request", requests.length)
      checkSystem(requests[0]!, sessionID, "next prompt")
      const answer = lastAssistant(await listAll(client, sessionID))
      check(answer?.error === undefined && answer?.finish === "stop", "the next prompt succeeded", answer)
    }
    const code = await second.stop()
    check(code === 0, "the restarted server stops cleanly", { code, stderr: second.stderr() })
  } finally {
    await second?.kill()
  }
}

describe("restart harness: preflight(resume) and provenance through a SIGKILLed opencode2 serve", () => {
  it(`resumes both sessions of a shared agent with the plugin's owned region, ${ITERATIONS} times out of ${ITERATIONS}`, async () => {
    const failures: Array<{ iteration: number; error: string }> = []
    for (let iteration = 1; iteration <= ITERATIONS; iteration++) {
      try {
        await scenario(iteration)
      } catch (error) {
        failures.push({ iteration, error: error instanceof Error ? error.message : String(error) })
      }
    }
    expect({ passed: ITERATIONS - failures.length, of: ITERATIONS, failures }).toEqual({
      passed: ITERATIONS,
      of: ITERATIONS,
      failures: [],
    })
  }, 600_000)

  it("control: seeding only at prompt admission fails closed on the resumed request and heals on the next prompt", async () => {
    const run = prepare("prompt")
    const { sessions } = await killMidStream(run, 0)
    const afterKill = provider.requests.length
    const second = await serve(run)
    const client = second.client
    for (const sessionID of sessions) await client.v2.session.wait({ sessionID })
    const log = readHarnessLog(run.log)
    for (const sessionID of sessions) {
      const lines = linesOf(log, second.pid, sessionID)
      // Preflight still runs first (the plugin just does not seed there), then the context fails closed.
      expect(lines.map((l) => [l.plugin, l.hook, l.reason ?? l.ok])).toEqual([
        ["ownership", "preflight", "resume"],
        ["guard", "context", true],
        ["ownership", "context", false],
      ])
      expect(requestFor(provider.requests.slice(afterKill), sessionID)).toEqual([])
      const failed = lastAssistant(await listAll(client, sessionID))!
      expect(failed.error).toMatchObject({
        type: "unknown",
        name: "Plugin.HookError",
        message: expect.stringContaining(OWNERSHIP_ERROR),
      })
      expect((await client.v2.session.get({ sessionID })).data!.data.status).toBe("idle")
    }
    // The next ordinary prompt re-seeds through the prompt hook and succeeds.
    const next = await promptAgain(client, sessions, 0)
    for (const sessionID of sessions) {
      const requests = requestFor(next, sessionID)
      expect(requests).toHaveLength(1)
      checkSystem(requests[0]!, sessionID, "healed prompt")
      expect(lastAssistant(await listAll(client, sessionID))).toMatchObject({ finish: "stop" })
    }
    expect(await second.stop()).toBe(0)
  }, 120_000)
})
