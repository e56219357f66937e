/**
 * Acceptance of upstream OpenCode's v2 wire protocol: a real `opencode2 serve` child driven by upstream's
 * published client (`@opencode-ai/sdk@1.19.3`, `client.v2`), unchanged. Every operation must answer 2xx with
 * a body that validates against upstream's response type (extra fields allowed; see
 * `support/upstream-contract.ts`). Each operation is its own test, so the report lists which conform.
 *
 * The location is a temp directory; the model is the offline provider (`docs/offline-provider.md`), whose
 * prompt lines make tool calls (`/tool write {...}`) and reasoning (`/think ...`) deterministically.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { durableDefinitions, ephemeralDefinitions } from "@opencode-ai/schema"
import { createOpencodeClient } from "upstream-sdk/v2"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { before } from "./support/deadline.ts"
import { spawnServe, type ServeChild } from "./support/e2e-serve.ts"
import { tempDir } from "./support/tmp.ts"
import { type UpstreamContract, upstreamContract } from "./support/upstream-contract.ts"

/**
 * Event types this host sends that upstream declares nowhere (see `validateEvents`): allowed in history,
 * per-session SSE and the global stream. A type upstream does declare is always checked against upstream's
 * member, listed here or not. They are the session events `@opencode-ai/schema` declares beyond upstream's
 * (checked below, so the list stays the real set), plus `server.error`, the last frame of a stream whose
 * subscriber fell too far behind.
 */
const HOST_EVENT_ADDITIONS: ReadonlyArray<string> = [
  "session.next.created",
  "session.next.renamed",
  "session.next.deleted",
  "session.next.synthetic.queued",
  "session.next.turn.started",
  "session.next.turn.resumed",
  "session.next.turn.ended",
  "session.next.text.appended",
  "session.next.reasoning.appended",
  "session.next.text.corrected",
  "session.next.message.retracted",
  "session.next.tool.pruned",
  "session.next.reasoning.removed",
  "session.next.pruned",
  "session.next.erased",
  "plugin.event.overflowed",
  "server.error",
]

/**
 * Upstream declares these as `V2Event` members (live events) but not as `SessionDurableEvent` members; this
 * host commits them to the session's history. In a durable list they are additions to that union, each
 * still checked against upstream's `V2Event` member.
 */
const JOURNALED_LIVE_EVENTS: ReadonlyArray<string> = [
  "permission.v2.asked",
  "permission.v2.replied",
  "question.v2.asked",
  "question.v2.rejected",
  "question.v2.replied",
  "todo.updated",
]

/** How long one awaited server reaction (a turn ending, an SSE frame) may take before the test fails. */
const PATIENCE = 30_000

type Client = ReturnType<typeof createOpencodeClient>["v2"]
type Result = { data?: unknown; error?: unknown; response?: Response }

let contract: UpstreamContract
let serve: ServeChild
let client: Client
let root: string
let project: string

const show = (value: unknown) => {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2)
  return text === undefined ? String(value) : text.length > 6000 ? `${text.slice(0, 6000)}\n... (truncated)` : text
}

/**
 * The body of a 2xx answer that validates against upstream's type for `operation` (events inside it may
 * be host additions); otherwise throws with the status, the validation errors and the body.
 */
const conform = <R extends Result>(operation: string, result: R): Exclude<R["data"], undefined> => {
  const status = result.response?.status
  if (status === undefined || status < 200 || status > 299) {
    throw new Error(
      `${operation} answered ${status ?? "nothing"} (${result.response?.url ?? "no request"}):\n${show(result.error)}`,
    )
  }
  const errors = contract.validateResponse(operation, result.data, status, HOST_EVENT_ADDITIONS)
  if (errors.length > 0) {
    throw new Error(
      `${operation} (HTTP ${status}) does not conform to upstream:\n  ${errors.join("\n  ")}\nbody:\n${show(result.data)}`,
    )
  }
  return result.data as Exclude<R["data"], undefined>
}

/** Fails with every non-conforming event and the list, unless all conform (members or listed additions). */
const eventsConform = (what: string, events: ReadonlyArray<unknown>, unionType: "SessionDurableEvent" | "V2Event") => {
  const journaled = unionType === "SessionDurableEvent" ? JOURNALED_LIVE_EVENTS : []
  const errors = [
    ...contract.validateEvents(events, { unionType, additions: [...HOST_EVENT_ADDITIONS, ...journaled] }),
    ...events.flatMap((event, index) =>
      journaled.includes((event as Durable).type)
        ? contract.validateType("V2Event", event).map((error) => `[${index}] ${(event as Durable).type}: ${error}`)
        : [],
    ),
  ]
  if (errors.length > 0) {
    throw new Error(
      `${what}: events do not conform to upstream ${unionType}:\n  ${errors.join("\n  ")}\nevents:\n${show(events)}`,
    )
  }
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
let idCounter = 0
/** A client-chosen id in the host's format: prefix, 14 hex digits of time and counter, 12 random characters. */
const clientID = (prefix: "ses" | "msg") => {
  const stamp = (BigInt(Date.now()) * 0x1000n + BigInt(idCounter++ % 0x1000)).toString(16).padStart(14, "0")
  const tail = Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => ALPHABET[byte % ALPHABET.length])
  return `${prefix}_${stamp}${tail.join("")}`
}

/** A new session at the project location (setup for another operation's test, checked only for 2xx). */
const freshSession = async () => {
  const created = await client.session.create({ location: { directory: project } })
  const id = created.data?.data?.id
  if (!id) {
    const status = created.response?.status
    throw new Error(`setup: session.create answered ${status} without data.id:\n${show(created.data ?? created.error)}`)
  }
  return id
}

/** Setup: admits `text` and waits for the session to be idle again. */
const promptAndWait = async (sessionID: string, text: string) => {
  const admitted = await client.session.prompt({ sessionID, prompt: { text } })
  if (!admitted.response?.ok)
    throw new Error(`setup: session.prompt answered ${admitted.response?.status}: ${show(admitted.error)}`)
  await idle(sessionID)
  return admitted.data!.data
}

const idle = async (sessionID: string) => {
  const waited = await before(client.session.wait({ sessionID }), PATIENCE, `session ${sessionID} idle`)
  if (!waited.response?.ok)
    throw new Error(`setup: session.wait answered ${waited.response?.status}: ${show(waited.error)}`)
}

type Durable = { type: string; durable?: { seq?: number } }
const seqOf = (event: unknown, frameID?: string) => {
  const seq = (event as Durable | null)?.durable?.seq
  return typeof seq === "number" ? seq : frameID !== undefined && frameID !== "" ? Number(frameID) : undefined
}

/** Every durable event of a session through `session.history`, all pages (setup, checked only for 2xx). */
const allHistory = async (sessionID: string) => {
  const events: Array<unknown> = []
  let after: number | undefined
  for (;;) {
    const page = await client.session.history({ sessionID, ...(after === undefined ? {} : { after }) })
    if (!page.response?.ok || !page.data)
      throw new Error(`setup: session.history answered ${page.response?.status}: ${show(page.error)}`)
    events.push(...page.data.data)
    const last = page.data.data.at(-1)
    if (!page.data.hasMore || last === undefined) return events
    const next = seqOf(last)
    if (next === undefined || next === after) throw new Error(`session.history pages without progress at ${show(last)}`)
    after = next
  }
}

interface Frame {
  readonly data: unknown
  readonly id?: string
  readonly event?: string
}

/**
 * The `fetch` the streams below are opened with: the global one, but the response body ends instead of
 * failing when `signal` aborts. Upstream's SSE reader (`serverSentEvents.gen.js`) cancels its body reader
 * on abort and drops the promise `cancel()` returns; on a body the abort already failed, that promise
 * rejects unhandled (reported as an error of this file). A closed body's cancel resolves, so closing a
 * stream here is quiet; what is sent and received is unchanged.
 */
const endingOnAbort = (signal: AbortSignal): typeof fetch =>
  (async (input: Request | string | URL, init?: RequestInit) => {
    const response = await fetch(input, init)
    if (response.body === null) return response
    const source = response.body.getReader()
    let finished = false
    let stop = () => {}
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        stop = () => {
          if (finished) return
          finished = true
          controller.close()
          source.cancel().catch(() => undefined)
        }
        if (signal.aborted) stop()
        else signal.addEventListener("abort", stop, { once: true })
      },
      async pull(controller) {
        const next = await source.read().catch((cause: unknown) => ({ cause }))
        if (finished) return
        if ("cause" in next) {
          finished = true
          controller.error(next.cause)
        } else if (next.done) {
          finished = true
          controller.close()
        } else controller.enqueue(next.value)
      },
      cancel: (reason) => source.cancel(reason).catch(() => undefined),
    })
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }) as typeof fetch

/** An SSE stream read in the background through upstream's client, with waits on what arrived. */
const openStream = async (
  what: string,
  open: (options: {
    signal: AbortSignal
    fetch: typeof fetch
    sseMaxRetryAttempts: number
    onSseError: (error: unknown) => void
    onSseEvent: (event: Frame) => void
  }) => Promise<{ stream: AsyncGenerator<unknown> }>,
) => {
  const controller = new AbortController()
  const frames: Array<Frame> = []
  const waiters = new Set<() => void>()
  let failure: unknown
  let ended = false
  const notify = () => {
    for (const waiter of waiters) waiter()
  }
  const { stream } = await open({
    signal: controller.signal,
    fetch: endingOnAbort(controller.signal),
    // One attempt: a refused stream fails the test instead of being retried with backoff.
    sseMaxRetryAttempts: 1,
    onSseError: (error) => {
      if (!controller.signal.aborted) failure = error
    },
    onSseEvent: (event) => {
      if (event.data !== undefined) frames.push({ data: event.data, id: event.id, event: event.event })
    },
  })
  void (async () => {
    try {
      for await (const _ of stream) notify()
    } catch (error) {
      if (!controller.signal.aborted) failure = error
    } finally {
      ended = true
      notify()
    }
  })()
  const until = (ready: (frames: ReadonlyArray<Frame>) => boolean, condition: string) =>
    before(
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (ready(frames)) {
            waiters.delete(check)
            resolve()
          } else if (ended) {
            waiters.delete(check)
            reject(
              new Error(
                `${what} ended before ${condition}${failure ? `: ${String(failure)}` : ""}\nframes:\n${show(frames)}`,
              ),
            )
          }
        }
        waiters.add(check)
        check()
      }),
      PATIENCE,
      `${what}: ${condition} (frames so far: ${frames.length}${failure ? `, error: ${String(failure)}` : ""})`,
    )
  return { frames, until, close: () => controller.abort() }
}

const sessionOf = (event: unknown) => (event as { data?: { sessionID?: unknown } } | null)?.data?.sessionID

beforeAll(async () => {
  contract = await upstreamContract()
  root = tempDir("oc2-upstream-")
  project = join(root, "project")
  mkdirSync(join(project, "sub"), { recursive: true })
  writeFileSync(join(project, "a.txt"), "alpha\nbeta\n")
  writeFileSync(join(project, "sub", "b.txt"), "inner\n")
  writeFileSync(join(root, "secret.txt"), "outside the location\n")
  const config = join(root, "opencode.json")
  // Automatic titles off: their rename lands after a turn ends, and tests here compare histories across turns.
  writeFileSync(config, JSON.stringify({ model: "offline/echo", permission: { edit: "ask" }, title: { auto: false } }))
  serve = await spawnServe({ database: join(root, "opencode.db"), config, cwd: root, env: { HOME: root } })
  client = createOpencodeClient({ baseUrl: serve.url, directory: project }).v2
})

afterAll(async () => {
  await serve?.stop()
})

describe("upstream v2 client against opencode2 serve", () => {
  it("the listed event additions are the host's real set", () => {
    const upstream = new Set([...contract.memberTypes("V2Event"), ...contract.memberTypes("SessionDurableEvent")])
    const declared = [...durableDefinitions, ...ephemeralDefinitions].map((definition) => definition.type)
    expect(declared.filter((type) => !upstream.has(type)).sort()).toEqual(
      HOST_EVENT_ADDITIONS.filter((type) => type !== "server.error").toSorted(),
    )
    expect(contract.memberTypes("V2Event")).not.toContain("server.error")
    const liveUpstream = new Set(contract.memberTypes("V2Event"))
    const durableUpstream = new Set(contract.memberTypes("SessionDurableEvent"))
    expect(
      durableDefinitions
        .map((definition) => definition.type)
        .filter((type) => liveUpstream.has(type) && !durableUpstream.has(type))
        .sort(),
    ).toEqual([...JOURNALED_LIVE_EVENTS].sort())
  })

  describe("discovery", () => {
    it("health.get", async () => {
      conform("health.get", await client.health.get())
    })

    it("location.get", async () => {
      const body = conform("location.get", await client.location.get({ location: { directory: project } }))
      expect(body.directory).toBe(project)
    })

    it("agent.list", async () => {
      const body = conform("agent.list", await client.agent.list({ location: { directory: project } }))
      expect(body.data.length).toBeGreaterThan(0)
    })

    it("model.list", async () => {
      const body = conform("model.list", await client.model.list({ location: { directory: project } }))
      expect(body.data.map((model) => `${model.providerID}/${model.id}`)).toContain("offline/echo")
    })

    it("provider.list", async () => {
      const body = conform("provider.list", await client.provider.list({ location: { directory: project } }))
      expect(body.data.map((provider) => provider.id)).toContain("offline")
    })

    it("provider.get (offline)", async () => {
      const body = conform(
        "provider.get",
        await client.provider.get({ providerID: "offline", location: { directory: project } }),
      )
      expect(body.data.id).toBe("offline")
    })

    it("command.list", async () => {
      conform("command.list", await client.command.list({ location: { directory: project } }))
    })

    it("skill.list", async () => {
      conform("skill.list", await client.skill.list({ location: { directory: project } }))
    })
  })

  describe("sessions", () => {
    it("session.create with location", async () => {
      const body = conform("session.create", await client.session.create({ location: { directory: project } }))
      expect(body.data.location.directory).toBe(project)
    })

    it("session.create with no parameters", async () => {
      // Upstream's client sends no body at all here; the session is made at the client's directory.
      const body = conform("session.create", await client.session.create())
      expect(body.data.location.directory).toBe(project)
    })

    it("session.create with agent", async () => {
      const agents = conform("agent.list", await client.agent.list({ location: { directory: project } })).data
      const agent = agents.find((a) => a.id === "build") ?? agents.find((a) => a.mode !== "subagent") ?? agents[0]!
      const body = conform(
        "session.create",
        await client.session.create({ location: { directory: project }, agent: agent.id }),
      )
      expect(body.data.agent).toBe(agent.id)
    })

    it("session.create with model", async () => {
      const model = { providerID: "offline", id: "echo" }
      const body = conform("session.create", await client.session.create({ location: { directory: project }, model }))
      expect(body.data.model).toMatchObject(model)
    })

    it("session.create with a client-chosen id", async () => {
      const id = clientID("ses")
      const body = conform("session.create", await client.session.create({ id, location: { directory: project } }))
      expect(body.data.id).toBe(id)
    })

    it("session.list with order, search and directory", async () => {
      const sessionID = await freshSession()
      const title = conform("session.get", await client.session.get({ sessionID })).data.title
      for (const order of ["asc", "desc"] as const) {
        conform("session.list", await client.session.list({ order }))
      }
      const inProject = conform("session.list", await client.session.list({ directory: project, order: "desc" }))
      expect(inProject.data.map((s) => s.id)).toContain(sessionID)
      expect(inProject.data.every((s) => s.location.directory === project)).toBe(true)
      const found = conform("session.list", await client.session.list({ directory: project, search: title }))
      expect(found.data.map((s) => s.id)).toContain(sessionID)
      const none = conform("session.list", await client.session.list({ search: "no session is titled like this" }))
      expect(none.data).toEqual([])
    })

    it("session.list paging with limit and cursor.next", async () => {
      await freshSession()
      await freshSession()
      const first = conform("session.list", await client.session.list({ directory: project, order: "asc", limit: 1 }))
      expect(first.data).toHaveLength(1)
      expect(first.cursor.next, "a first page of one of several sessions has cursor.next").toBeTypeOf("string")
      const second = conform("session.list", await client.session.list({ cursor: first.cursor.next!, limit: 1 }))
      expect(second.data).toHaveLength(1)
      expect(second.data[0]!.id).not.toBe(first.data[0]!.id)
      expect(second.data[0]!.time.created).toBeGreaterThanOrEqual(first.data[0]!.time.created)
    })

    it("session.list paging newest first: a cursor alone continues its listing's order", async () => {
      await freshSession()
      await freshSession()
      const first = conform("session.list", await client.session.list({ directory: project, limit: 1 }))
      expect(first.cursor.next, "a first page of one of several sessions has cursor.next").toBeTypeOf("string")
      const second = conform("session.list", await client.session.list({ cursor: first.cursor.next!, limit: 1 }))
      expect(second.data).toHaveLength(1)
      expect(second.data[0]!.id < first.data[0]!.id, "the next page is older").toBe(true)
    })

    it("session.get", async () => {
      const sessionID = await freshSession()
      const body = conform("session.get", await client.session.get({ sessionID }))
      expect(body.data.id).toBe(sessionID)
    })

    it("session.active", async () => {
      conform("session.active", await client.session.active())
    })

    it("session.switchAgent", async () => {
      const sessionID = await freshSession()
      const agents = conform("agent.list", await client.agent.list({ location: { directory: project } })).data
      const agent = agents.find((a) => a.id === "build") ?? agents.find((a) => a.mode !== "subagent") ?? agents[0]!
      conform("session.switchAgent", await client.session.switchAgent({ sessionID, agent: agent.id }))
    })

    it("session.switchModel", async () => {
      const sessionID = await freshSession()
      conform(
        "session.switchModel",
        await client.session.switchModel({ sessionID, model: { providerID: "offline", id: "echo" } }),
      )
    })
  })

  describe("prompting", () => {
    it("session.prompt with prompt.text", async () => {
      const sessionID = await freshSession()
      const body = conform("session.prompt", await client.session.prompt({ sessionID, prompt: { text: "hello" } }))
      expect(body.data.sessionID).toBe(sessionID)
      expect(body.data.prompt.text).toBe("hello")
      await idle(sessionID)
    })

    it("session.prompt with prompt.files", async () => {
      const sessionID = await freshSession()
      const file = { uri: pathToFileURL(join(project, "a.txt")).href, name: "a.txt" }
      const body = conform(
        "session.prompt",
        await client.session.prompt({ sessionID, prompt: { text: "look at this file", files: [file] } }),
      )
      expect(body.data.prompt.files?.map((f) => f.uri)).toEqual([file.uri])
      await idle(sessionID)
    })

    it('session.prompt with delivery "steer" and "queue"', async () => {
      const sessionID = await freshSession()
      const steer = conform(
        "session.prompt",
        await client.session.prompt({ sessionID, prompt: { text: "first" }, delivery: "steer" }),
      )
      const queue = conform(
        "session.prompt",
        await client.session.prompt({ sessionID, prompt: { text: "second" }, delivery: "queue" }),
      )
      expect(steer.data.delivery).toBe("steer")
      expect(queue.data.delivery).toBe("queue")
      await idle(sessionID)
    })

    it("session.prompt with an id twice is idempotent", async () => {
      const sessionID = await freshSession()
      const id = clientID("msg")
      const first = conform("session.prompt", await client.session.prompt({ sessionID, id, prompt: { text: "once" } }))
      expect(first.data.id).toBe(id)
      await idle(sessionID)
      const stored = await allHistory(sessionID)
      const again = conform("session.prompt", await client.session.prompt({ sessionID, id, prompt: { text: "once" } }))
      expect(again).toEqual(first)
      await idle(sessionID)
      expect(await allHistory(sessionID), "the repeated prompt stores nothing new").toEqual(stored)
    })

    it("session.prompt with resume: false", async () => {
      const sessionID = await freshSession()
      conform("session.prompt", await client.session.prompt({ sessionID, prompt: { text: "later" }, resume: false }))
      await idle(sessionID)
    })

    it("session.wait", async () => {
      const sessionID = await freshSession()
      await client.session.prompt({ sessionID, prompt: { text: "/think pondering\nanswer me" } })
      conform("session.wait", await before(client.session.wait({ sessionID }), PATIENCE, "session.wait"))
    })

    it("session.compact", async () => {
      const sessionID = await freshSession()
      await promptAndWait(sessionID, "something to compact")
      conform("session.compact", await before(client.session.compact({ sessionID }), PATIENCE, "session.compact"))
      await idle(sessionID)
    })

    it("session.context", async () => {
      const sessionID = await freshSession()
      await promptAndWait(sessionID, "context please")
      const body = conform("session.context", await client.session.context({ sessionID }))
      expect(body.data.length).toBeGreaterThan(0)
    })

    it("session.interrupt", async () => {
      const sessionID = await freshSession()
      conform("session.interrupt", await client.session.interrupt({ sessionID }))
      await client.session.prompt({ sessionID, prompt: { text: "/think a long thought\nthen stop" } })
      conform("session.interrupt", await client.session.interrupt({ sessionID }))
      await idle(sessionID)
    })
  })

  describe("transcript", () => {
    // One two-turn session for every test here, made on first use so a failed setup fails each test
    // (with the setup's error) instead of skipping them.
    let setup: Promise<string> | undefined
    const transcript = () =>
      (setup ??= (async () => {
        const id = await freshSession()
        await promptAndWait(id, "/think reasoning first\nfirst answer")
        await promptAndWait(id, 'read it\n/tool read {"path":"a.txt"}')
        return id
      })())

    it("session.messages with limit, order and cursor paging", async () => {
      const sessionID = await transcript()
      const all = conform("session.messages", await client.session.messages({ sessionID, order: "asc" }))
      expect(all.data.length).toBeGreaterThan(2)
      conform("session.messages", await client.session.messages({ sessionID, order: "desc", limit: 2 }))
      const first = conform("session.messages", await client.session.messages({ sessionID, order: "asc", limit: 1 }))
      expect(first.data).toHaveLength(1)
      expect(first.cursor.next, "a first page of one of several messages has cursor.next").toBeTypeOf("string")
      const second = conform(
        "session.messages",
        await client.session.messages({ sessionID, cursor: first.cursor.next!, limit: 1 }),
      )
      expect(second.data).toHaveLength(1)
      expect(second.data[0]!.id).toBe(all.data[1]!.id)
    })

    it("session.message", async () => {
      const sessionID = await transcript()
      const all = conform("session.messages", await client.session.messages({ sessionID, order: "asc" }))
      for (const message of all.data) {
        const body = conform("session.message", await client.session.message({ sessionID, messageID: message.id }))
        expect(body.data.id).toBe(message.id)
      }
    })

    it("session.history with after and limit", async () => {
      const sessionID = await transcript()
      const page = conform("session.history", await client.session.history({ sessionID, limit: 3 }))
      eventsConform("session.history", page.data, "SessionDurableEvent")
      expect(page.data.length).toBeLessThanOrEqual(3)
      expect(page.hasMore, "three of a two-turn session's events leave more").toBe(true)
      const after = seqOf(page.data.at(-1))
      expect(after, `a history event carries durable.seq: ${show(page.data.at(-1))}`).toBeTypeOf("number")
      const rest = conform("session.history", await client.session.history({ sessionID, after: after! }))
      eventsConform("session.history", rest.data, "SessionDurableEvent")
      const seqs = rest.data.map((event) => seqOf(event))
      expect(
        seqs.every((seq) => seq !== undefined && seq > after!),
        `seqs after ${after}: ${seqs}`,
      ).toBe(true)
      expect([...seqs].sort((a, b) => a! - b!)).toEqual(seqs)
    })

    it("session.events replays after a seq, then goes live", async () => {
      const sessionID = await transcript()
      const history = await allHistory(sessionID)
      const last = seqOf(history.at(-1))!
      const after = seqOf(history[1])!
      const replayed = history.length - 2
      const stream = await openStream("session.events", (options) =>
        client.session.events({ sessionID, after: String(after) }, options),
      )
      try {
        await stream.until((frames) => frames.length >= replayed, `${replayed} replayed frames`)
        await client.session.prompt({ sessionID, prompt: { text: "live now" } })
        await stream.until(
          (frames) => frames.some((frame) => (seqOf(frame.data, frame.id) ?? 0) > last),
          `a live frame after seq ${last}`,
        )
      } finally {
        stream.close()
      }
      const events = stream.frames.map((frame) => frame.data)
      eventsConform("session.events", events, "SessionDurableEvent")
      const seqs = stream.frames.map((frame) => seqOf(frame.data, frame.id))
      expect(
        seqs.every((seq) => seq !== undefined && seq > after),
        `seqs after ${after}: ${seqs}`,
      ).toBe(true)
      expect(
        seqs.every((seq, i) => i === 0 || seq! > seqs[i - 1]!),
        `ascending: ${seqs}`,
      ).toBe(true)
      expect(seqs.slice(0, replayed)).toEqual(history.slice(2).map((event) => seqOf(event)))
      await idle(sessionID)
    })
  })

  describe("permissions", () => {
    let sessionID: string
    let requestID: string | undefined

    it("session.permission.list shows the ask of an edit", async () => {
      sessionID = await freshSession()
      const events = await openStream("event.subscribe", (options) => client.event.subscribe(options))
      try {
        await events.until((frames) => frames.length > 0, "the first frame")
        await client.session.prompt({ sessionID, prompt: { text: '/tool write {"path":"x.txt","content":"hi"}' } })
        await events.until(
          (frames) =>
            frames.some((f) => (f.data as Durable).type === "permission.v2.asked" && sessionOf(f.data) === sessionID),
          "permission.v2.asked for the session",
        )
      } finally {
        events.close()
      }
      const body = conform("session.permission.list", await client.session.permission.list({ sessionID }))
      expect(body.data).toHaveLength(1)
      expect(body.data[0]!.sessionID).toBe(sessionID)
      requestID = body.data[0]!.id
      expect(existsSync(join(project, "x.txt")), "nothing is written before the answer").toBe(false)
    })

    it("permission.request.list shows it among every session's requests", async () => {
      expect(requestID, "a pending request (session.permission.list)").toBeDefined()
      const body = conform("permission.request.list", await client.permission.request.list())
      expect(body.data.map((request) => request.id)).toContain(requestID)
    })

    it("session.permission.get", async () => {
      expect(requestID, "a pending request (session.permission.list)").toBeDefined()
      const body = conform(
        "session.permission.get",
        await client.session.permission.get({ sessionID, requestID: requestID! }),
      )
      expect(body.data.id).toBe(requestID)
    })

    it("session.permission.reply once runs the call", async () => {
      expect(requestID, "a pending request (session.permission.list)").toBeDefined()
      conform(
        "session.permission.reply",
        await client.session.permission.reply({ sessionID, requestID: requestID!, reply: "once" }),
      )
      await idle(sessionID)
      expect(readFileSync(join(project, "x.txt"), "utf8")).toBe("hi")
      const left = conform("session.permission.list", await client.session.permission.list({ sessionID }))
      expect(left.data).toEqual([])
      // The ask and its reply are in the session's history (journaled live events of upstream's).
      const history = await allHistory(sessionID)
      const types = history.map((event) => (event as Durable).type)
      expect(types).toContain("permission.v2.asked")
      expect(types).toContain("permission.v2.replied")
      eventsConform("session.history", history, "SessionDurableEvent")
    })
  })

  describe("global events", () => {
    it("event.subscribe frames are V2Events", async () => {
      const sessionID = await freshSession()
      const events = await openStream("event.subscribe", (options) => client.event.subscribe(options))
      try {
        await events.until((frames) => frames.length > 0, "the first frame")
        await promptAndWait(sessionID, "/think briefly\nhello world")
        await events.until(
          (frames) => frames.some((frame) => sessionOf(frame.data) === sessionID),
          "a frame about the session",
        )
      } finally {
        events.close()
      }
      eventsConform(
        "event.subscribe",
        events.frames.map((frame) => frame.data),
        "V2Event",
      )
    })
  })

  describe("files", () => {
    const location = () => ({ location: { directory: project } })
    // Upstream's route is `/api/fs/read/*`: its generated method has no parameter for the path (its options
    // type even omits `url`), so the caller names the file by overriding the request URL, which the method
    // honours at run time.
    const file = (path: string) => ({ url: `/api/fs/read/${path}` }) as unknown as Parameters<Client["fs"]["read"]>[1]

    it("fs.read", async () => {
      const body = conform("fs.read", await client.fs.read(location(), file("a.txt")))
      expect(typeof body === "string" ? body : await (body as Blob).text()).toBe("alpha\nbeta\n")
    })

    it("fs.read refuses a path outside the location", async () => {
      conform("fs.read", await client.fs.read(location(), file("a.txt")))
      const escaped = await client.fs.read(location(), file("..%2Fsecret.txt"))
      expect(escaped.response?.status, show(escaped.data ?? escaped.error)).toBeGreaterThanOrEqual(400)
      expect(escaped.response?.status).toBeLessThan(500)
    })

    it("fs.list", async () => {
      const body = conform("fs.list", await client.fs.list(location()))
      expect(body.data).toContainEqual(
        expect.objectContaining({ type: "file", path: expect.stringMatching(/a\.txt$/) }),
      )
      const sub = conform("fs.list", await client.fs.list({ ...location(), path: "sub" }))
      expect(sub.data.map((entry) => entry.path)).toEqual([expect.stringMatching(/b\.txt$/)])
    })

    it("fs.list refuses a path outside the location", async () => {
      conform("fs.list", await client.fs.list(location()))
      const escaped = await client.fs.list({ ...location(), path: ".." })
      expect(escaped.response?.status, show(escaped.data ?? escaped.error)).toBeGreaterThanOrEqual(400)
      expect(escaped.response?.status).toBeLessThan(500)
    })

    it("fs.find", async () => {
      const body = conform("fs.find", await client.fs.find({ ...location(), query: "b.txt" }))
      expect(body.data.map((entry) => entry.path)).toContainEqual(expect.stringMatching(/b\.txt$/))
      const secret = conform("fs.find", await client.fs.find({ ...location(), query: "secret" }))
      expect(secret.data, "find stays inside the location").toEqual([])
    })
  })
})
