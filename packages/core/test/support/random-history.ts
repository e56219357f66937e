import { Effect } from "effect"
import type fc from "fast-check"
import { Bus } from "../../src/bus/bus.ts"
import { draft, type Draft } from "../../src/bus/event.ts"
import { ascending } from "../../src/id/id.ts"
import { SessionEvent as E } from "../../src/session/event.ts"

/**
 * Drives the bus with a random but valid history: each op code picks an action that is legal in the
 * current model state (sessions, claims, inbox, in-progress assistant messages), so every generated
 * sequence exercises real projector paths, including corrections, retractions and part removals.
 */
interface Model {
  sessions: Map<
    string,
    {
      claim?: string
      inbox: Array<{ id: string; type: "user" | "synthetic" }>
      inputs: Array<{ id: string; partID: string; retracted: boolean }>
      assistant?: { id: string; parts: Array<{ id: string; type: string }> }
      completed: Array<{ id: string; parts: Array<{ id: string; type: string }> }>
      /** Permission asks not yet answered. */
      asks: Array<string>
    }
  >
}

const input = (sessionID: string, type: "user" | "synthetic", text: string) => {
  const id = ascending("msg")
  const partID = ascending("prt")
  const base = {
    id,
    sessionID,
    origin: type === "user" ? "user" : "plugin:test",
    parts: [{ id: partID, type: "text" as const, text }],
    time: { created: 1 },
  }
  return { id, partID, message: type === "user" ? { ...base, type } : { ...base, type, description: "notice" } }
}

export const applyOps = (ops: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    const model: Model = { sessions: new Map() }
    for (const [step, op] of ops.entries()) {
      const ids = [...model.sessions.keys()]
      const sessionID = ids.length > 0 && op % 13 !== 0 ? ids[(op >> 4) % ids.length]! : undefined
      if (!sessionID) {
        const id = ascending("ses")
        model.sessions.set(id, { inbox: [], inputs: [], completed: [], asks: [] })
        yield* bus.commit(id, [
          draft(E.Created, { title: `s${step}`, directory: "/tmp", ...(op % 2 ? { agent: "build" } : {}) }),
        ])
        continue
      }
      const s = model.sessions.get(sessionID)!
      const drafts: Array<Draft> = []
      const kind = op % 12
      const text = `t${step}-${"x".repeat(op % 7)}`
      if (kind === 0) {
        drafts.push(draft(E.Renamed, { title: text }))
        const ask = s.asks.shift()
        if (ask) {
          const reply = (["once", "always", "reject"] as const)[op % 3]!
          drafts.push(draft(E.PermissionReplied, { permissionID: ask, reply, ...(op % 2 ? { message: text } : {}) }))
        }
      } else if (kind === 1 || (kind === 2 && !s.claim)) {
        const made = input(sessionID, op % 3 ? "user" : "synthetic", text)
        if (s.claim) {
          s.inbox.push({ id: made.id, type: made.message.type })
          drafts.push(draft(E.InputQueued, { message: made.message, wake: op % 4 !== 0 }))
        } else {
          s.inputs.push({ id: made.id, partID: made.partID, retracted: false })
          drafts.push(draft(E.MessageAdmitted, { message: made.message }))
        }
      } else if (kind === 2 && s.claim && !s.assistant) {
        const id = ascending("msg")
        s.assistant = { id, parts: [] }
        drafts.push(
          draft(E.AssistantStarted, {
            messageID: id,
            turnID: s.claim,
            agent: "build",
            model: { providerID: "offline", modelID: "echo" },
          }),
        )
      } else if (kind === 3 && !s.claim) {
        s.claim = ascending("trn")
        drafts.push(draft(E.TurnStarted, { turnID: s.claim, reason: op % 2 ? "prompt" : "synthetic" }))
      } else if (kind === 3 && s.claim && !s.assistant && op % 3 === 0) {
        // A compaction inside a turn: its summary is a text part that later corrections may address.
        const id = ascending("msg")
        const partID = ascending("prt")
        s.inputs.push({ id, partID, retracted: false })
        drafts.push(
          draft(E.Compacted, {
            message: {
              id,
              sessionID,
              origin: "host",
              type: "compaction",
              parts: [{ id: partID, type: "text", text: `summary ${text}` }],
              time: { created: step },
              through: step,
              reason: op % 2 ? "auto" : "manual",
              model: { providerID: "offline", modelID: "echo" },
              ...(op % 4 === 0 ? { usage: { input: op, output: step } } : {}),
            },
          }),
        )
      } else if (kind === 4 && s.claim) drafts.push(draft(E.TurnResumed, { turnID: s.claim, attempt: (op % 5) + 1 }))
      else if (kind === 5 && s.assistant) {
        const partType = (["text", "reasoning", "tool"] as const)[op % 3]!
        const id = op % 4 === 0 && s.assistant.parts.length > 0 ? s.assistant.parts[0]!.id : ascending("prt")
        const part =
          partType === "tool"
            ? {
                id,
                type: "tool" as const,
                callID: `call_${step}`,
                tool: "read",
                input: { path: text },
                state: "completed" as const,
                output: text.repeat(3),
              }
            : { id, type: partType, text }
        if (!s.assistant.parts.some((p) => p.id === id)) s.assistant.parts.push({ id, type: part.type })
        else s.assistant.parts = s.assistant.parts.map((p) => (p.id === id ? { id, type: part.type } : p))
        drafts.push(draft(E.PartUpdated, { messageID: s.assistant.id, part }))
        if (partType === "tool" && op % 2 === 1) {
          const permissionID = ascending("per")
          s.asks.push(permissionID)
          drafts.push(
            draft(E.PermissionAsked, {
              permissionID,
              messageID: s.assistant.id,
              partID: id,
              callID: `call_${step}`,
              tool: "edit",
              permission: "edit",
              title: `edit ${text}`,
              patterns: [text],
              metadata: { diff: `-${text}\n+${text}!` },
              input: { path: text, oldString: text, newString: `${text}!` },
            }),
          )
        }
      } else if (kind === 6 && s.assistant) {
        drafts.push(
          draft(E.AssistantCompleted, {
            messageID: s.assistant.id,
            finish: "stop",
            ...(op % 2 ? { usage: { input: op, output: step } } : {}),
          }),
        )
        s.completed.push(s.assistant)
        s.assistant = undefined
      } else if (kind === 7 && s.claim && !s.assistant) {
        drafts.push(draft(E.TurnEnded, { turnID: s.claim, outcome: op % 2 ? "completed" : "interrupted" }))
        s.claim = undefined
        // Deliver what waited in the inbox at the boundary, as the turn loop does.
        for (const queued of s.inbox.splice(0)) {
          const made = input(sessionID, queued.type, `delivered-${step}`)
          const message = { ...made.message, id: queued.id }
          s.inputs.push({ id: queued.id, partID: made.partID, retracted: false })
          drafts.push(draft(E.MessageAdmitted, { message }))
        }
      } else if (kind === 8 && !s.claim) {
        const target = s.inputs.find((m) => !m.retracted)
        if (target)
          drafts.push(
            draft(E.MessageCorrected, { messageID: target.id, partID: target.partID, text, by: "plugin:test" }),
          )
      } else if (kind === 9 && s.claim && s.inbox.length > 0) {
        // Retracting queued input cancels its delivery; it enters the transcript retracted.
        const queued = s.inbox.splice((op >> 3) % s.inbox.length, 1)[0]!
        s.inputs.push({ id: queued.id, partID: "", retracted: true })
        drafts.push(draft(E.MessageRetracted, { messageID: queued.id, placeholder: "[retracted]", by: "user" }))
      } else if (kind === 9 && !s.claim) {
        const target = s.inputs.find((m) => !m.retracted)
        if (target) {
          target.retracted = true
          drafts.push(
            draft(E.MessageRetracted, { messageID: target.id, placeholder: "[retracted]", by: "plugin:test" }),
          )
        }
      } else if (kind === 10 && !s.claim) {
        const message = s.completed.find((m) => m.parts.some((p) => p.type !== "text"))
        const part = message?.parts.find((p) => p.type !== "text")
        if (message && part) {
          message.parts = message.parts.filter((p) => p !== part)
          drafts.push(draft(E.PartRemoved, { messageID: message.id, partID: part.id, by: "user" }))
        }
      } else if (kind === 11 && op % 5 === 0) {
        drafts.push(draft(E.Deleted, {}))
        model.sessions.delete(sessionID)
      } else if (kind === 11 && !s.claim) {
        const messages = s.completed
          .map((m) => ({ m, parts: m.parts.filter((p) => p.type !== "text") }))
          .filter((x) => x.parts.length > 0)
        if (messages.length > 0) {
          for (const { m } of messages) m.parts = m.parts.filter((p) => p.type === "text")
          drafts.push(
            draft(E.Pruned, {
              types: ["tool", "reasoning"],
              messages: messages.map(({ m, parts }) => ({ messageID: m.id, partIDs: parts.map((p) => p.id) })),
              by: "user",
            }),
          )
        } else drafts.push(draft(E.Erased, { events: 0, fields: 0, bytes: 0, by: "user" }))
      }
      if (drafts.length > 0) yield* bus.commit(sessionID, drafts)
    }
  })

export const opsArbitrary = (fcModule: typeof fc) =>
  fcModule.array(fcModule.nat({ max: 4095 }), { minLength: 20, maxLength: 150 })
