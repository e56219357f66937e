/**
 * The acceptance harness itself: upstream's v2 types as validators accept upstream-shaped bodies, allow
 * extra fields, and reject a missing or mistyped required field, a wrong status, and an event type that is
 * neither upstream's nor a listed addition.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { responsesTypeName, type UpstreamContract, upstreamContract } from "./support/upstream-contract.ts"

let contract: UpstreamContract
beforeAll(async () => {
  contract = await upstreamContract()
})

const location = { directory: "/tmp/project", project: { id: "prj_1", directory: "/tmp/project" } }
const session = {
  id: "ses_0194f3a2b1c00aXk3abcdefgh",
  projectID: "prj_1",
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  time: { created: 1, updated: 2 },
  title: "New session",
  location: { directory: "/tmp/project" },
}
const durable = (seq: number) => ({ aggregateID: session.id, seq, version: 1 })
const prompted = {
  id: "evt_1",
  type: "session.next.prompted",
  durable: durable(1),
  data: {
    timestamp: 1,
    sessionID: session.id,
    messageID: "msg_1",
    prompt: { text: "hi" },
    delivery: "steer",
  },
}
const textStarted = {
  id: "evt_2",
  type: "session.next.text.started",
  durable: durable(2),
  data: { timestamp: 2, sessionID: session.id, assistantMessageID: "msg_2", textID: "txt_1" },
}
const turnStarted = { id: "evt_3", type: "session.next.turn.started", durable: durable(3), data: { turnID: "trn_1" } }

const without = (value: Record<string, unknown>, key: string) => {
  const copy = { ...value }
  delete copy[key]
  return copy
}

describe("the upstream contract", () => {
  it("is the pinned upstream SDK", () => {
    expect(contract.version).toBe("1.19.3")
  })

  it("names operations as upstream's client.v2 paths", () => {
    expect(responsesTypeName("session.list")).toBe("V2SessionListResponses")
    expect(responsesTypeName("session.permission.reply")).toBe("V2SessionPermissionReplyResponses")
    expect(contract.successStatuses("session.list")).toEqual([200])
    expect(contract.successStatuses("session.interrupt")).toEqual([204])
    expect(() => contract.validateResponse("session.teleport", {})).toThrow(/no v2 operation session\.teleport/)
  })

  it("accepts upstream-shaped answers", () => {
    expect(contract.validateResponse("health.get", { healthy: true })).toEqual([])
    expect(contract.validateResponse("location.get", location)).toEqual([])
    expect(contract.validateResponse("session.get", { data: session }, 200)).toEqual([])
    expect(contract.validateResponse("session.list", { data: [session], cursor: { next: "abc" } })).toEqual([])
    expect(contract.validateResponse("session.list", { data: [], cursor: {} })).toEqual([])
    expect(contract.validateResponse("fs.list", { location, data: [{ path: "a.txt", type: "file" }] })).toEqual([])
    expect(
      contract.validateResponse("session.prompt", {
        data: {
          admittedSeq: 1,
          id: "msg_1",
          sessionID: session.id,
          prompt: { text: "hi" },
          delivery: "steer",
          timeCreated: 1,
        },
      }),
    ).toEqual([])
    expect(
      contract.validateResponse("session.message", {
        data: { id: "msg_1", type: "user", text: "hi", time: { created: 1 } },
      }),
    ).toEqual([])
  })

  it("allows extra fields at every depth", () => {
    expect(contract.validateResponse("health.get", { healthy: true, version: "0.1.0" })).toEqual([])
    expect(
      contract.validateResponse("session.get", {
        data: { ...session, status: "idle", time: { ...session.time, erased: 3 } },
        extra: 1,
      }),
    ).toEqual([])
    expect(contract.validateType("SessionDurableEvent", { ...prompted, hostOnly: true })).toEqual([])
  })

  it("rejects a missing required field, naming it", () => {
    const errors = contract.validateResponse("session.get", { data: without(session, "projectID") })
    expect(errors).toEqual([expect.stringMatching(/^\/data must have required property 'projectID'/)])
    expect(contract.validateResponse("session.list", { data: [session] })).toEqual([
      expect.stringMatching(/^\(root\) must have required property 'cursor'/),
    ])
  })

  it("rejects a mistyped field, naming its path", () => {
    const errors = contract.validateResponse("session.get", {
      data: { ...session, tokens: { ...session.tokens, cache: { read: "0", write: 0 } } },
    })
    expect(errors).toEqual([expect.stringMatching(/^\/data\/tokens\/cache\/read must be number/)])
    expect(contract.validateResponse("health.get", { healthy: false })).toEqual([
      expect.stringMatching(/^\/healthy must be equal to constant/),
    ])
    expect(contract.validateResponse("session.list", [session])).not.toEqual([])
  })

  it("checks a tagged union against the member its tag names", () => {
    expect(contract.validateType("SessionMessage", { id: "msg_1", type: "user", time: { created: 1 } })).toEqual([
      expect.stringMatching(/^\(root\) must have required property 'text'/),
    ])
    expect(contract.validateType("SessionMessage", { id: "msg_1", type: "telepathy", time: { created: 1 } })).toEqual([
      expect.stringMatching(/tag "type" must be in oneOf/),
    ])
    expect(contract.validateType("V2Event", { id: "evt_1", type: "server.connected", data: {} })).toEqual([])
    expect(() => contract.validateType("NoSuchType", {})).toThrow(/no type NoSuchType/)
  })

  it("wants no body for a void answer and the declared status", () => {
    expect(contract.validateResponse("session.interrupt", {}, 204)).toEqual([])
    expect(contract.validateResponse("session.interrupt", undefined)).toEqual([])
    expect(contract.validateResponse("session.interrupt", { ok: true }, 204)).toEqual([
      expect.stringMatching(/must be empty/),
    ])
    expect(contract.validateResponse("session.interrupt", {}, 200)).toEqual([
      "status 200: upstream answers session.interrupt with 204",
    ])
  })

  it("takes fs.read's answer as raw bytes", () => {
    expect(contract.validateResponse("fs.read", "hello\n")).toEqual([])
    expect(contract.validateResponse("fs.read", new Blob(["hello"]))).toEqual([])
    expect(contract.validateResponse("fs.read", { content: "hello" })).not.toEqual([])
  })

  it("lists the types of an event union's members", () => {
    const durableTypes = contract.memberTypes("SessionDurableEvent")
    expect(durableTypes).toContain("session.next.prompted")
    expect(durableTypes).not.toContain("session.next.text.delta")
    expect(contract.memberTypes("V2Event")).toContain("session.next.text.delta")
    expect(contract.memberTypes("V2Event")).toContain("session.status")
  })

  describe("event lists", () => {
    const history = { unionType: "SessionDurableEvent", additions: ["session.next.turn.started"] } as const

    it("accepts upstream members and listed additions", () => {
      expect(contract.validateEvents([prompted, turnStarted, textStarted], history)).toEqual([])
    })

    it("fails an unknown type unless it is listed as an addition", () => {
      expect(contract.validateEvents([prompted, turnStarted], { ...history, additions: [] })).toEqual([
        "[1] session.next.turn.started is neither a SessionDurableEvent member nor a listed addition",
      ])
      expect(contract.validateEvents([{ id: "evt_9", data: {} }], history)).toEqual([
        expect.stringMatching(/^\[0\] has no string type/),
      ])
    })

    it("checks a declared type against upstream's member even when listed as an addition", () => {
      const broken = { ...prompted, data: without(prompted.data, "messageID") }
      const listed = { ...history, additions: ["session.next.prompted"] }
      expect(contract.validateEvents([broken], listed)).toEqual([
        expect.stringMatching(
          /^\[0\] session\.next\.prompted \(SessionNextPrompted\): \/data must have required property 'messageID'/,
        ),
      ])
    })

    it("holds inside an answer: session.history's data with additions", () => {
      const page = { data: [prompted, turnStarted, textStarted], hasMore: false }
      const additions = ["session.next.turn.started"]
      expect(contract.validateResponse("session.history", page, 200, additions)).toEqual([])
      expect(contract.validateResponse("session.history", page)).toEqual([
        expect.stringMatching(/^\/data\/1 value of tag "type" must be in oneOf/),
      ])
      const unknown = { ...page, data: [prompted, { ...turnStarted, type: "session.next.unheard.of" }] }
      expect(contract.validateResponse("session.history", unknown, 200, additions)).toContainEqual(
        expect.stringMatching(/^\/data\/1\/type must be equal to one of the allowed values/),
      )
      const broken = { ...page, data: [{ ...prompted, data: without(prompted.data, "prompt") }, turnStarted] }
      expect(contract.validateResponse("session.history", broken, 200, additions)).toContainEqual(
        expect.stringMatching(/^\/data\/0\/data must have required property 'prompt'/),
      )
      expect(contract.validateType("V2Event", turnStarted, additions)).toEqual([])
      expect(contract.validateType("V2Event", turnStarted)).not.toEqual([])
    })

    it("judges membership by the union given: a live-only type is an addition in history", () => {
      const delta = {
        id: "evt_4",
        type: "session.next.text.delta",
        data: { timestamp: 3, sessionID: session.id, assistantMessageID: "msg_2", textID: "txt_1", delta: "he" },
      }
      expect(contract.validateEvents([delta], { unionType: "V2Event", additions: [] })).toEqual([])
      expect(contract.validateEvents([delta], { unionType: "SessionDurableEvent", additions: [] })).toEqual([
        "[0] session.next.text.delta is neither a SessionDurableEvent member nor a listed addition",
      ])
      const status = { id: "evt_5", type: "session.status", data: { sessionID: session.id } }
      expect(contract.validateEvents([status], { unionType: "V2Event", additions: ["session.status"] })).toEqual([
        expect.stringMatching(/^\[0\] session\.status \(SessionStatus2\): \/data must have required property 'status'/),
      ])
    })
  })
})
