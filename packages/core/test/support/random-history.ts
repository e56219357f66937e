import type { ModelRef } from "@opencode-ai/schema"
import { Effect } from "effect"
import type fc from "fast-check"
import { Bus } from "../../src/bus/bus.ts"
import { draft, type Draft } from "../../src/bus/event.ts"
import { ascending } from "../../src/id/id.ts"
import { SessionEvent as E } from "../../src/domain/event.ts"

/**
 * Drives the bus with a random but valid history: each op code picks an action that is legal in the
 * current model state (sessions, claims, inbox, the open assistant message and its streaming item, pending
 * permission asks), so every generated sequence exercises real projector paths: prompts and notices,
 * queued and delivered or retracted while queued; turns started, resumed after a crash (the open text kept
 * at its last `text.appended` checkpoint) and ended; streamed text and reasoning with checkpoints (one
 * sometimes committed twice, which must change nothing); tool calls through every state, with permission
 * asks and replies; compactions restating a prompt; agent and model switches; corrections, retractions,
 * tool pruning, reasoning removal, batch prunes, erase records and deletion.
 */

type ItemType = "text" | "reasoning" | "tool"
type ToolStatus = "pending" | "running" | "completed" | "error"

interface Item {
  readonly id: string
  readonly type: ItemType
  /** Tool items: the provider's call id and where the call is. */
  readonly callID?: string
  status?: ToolStatus
  pruned?: boolean
}

interface Assistant {
  readonly id: string
  items: Array<Item>
  /** The text or reasoning item still streaming: what was streamed, and how much of it is checkpointed. */
  open?: { id: string; type: "text" | "reasoning"; text: string; committed: number; last?: Draft }
}

interface Input {
  readonly id: string
  readonly kind: "prompt" | "synthetic"
  /** What was sent (and the op that shaped it), which its delivery from the inbox carries unchanged. */
  readonly text: string
  readonly op: number
  retracted: boolean
}

interface SessionModel {
  claim?: string
  inbox: Array<Input>
  inputs: Array<Input>
  assistant?: Assistant
  completed: Array<Assistant>
  /** Permission requests not yet answered. */
  asks: Array<string>
  /** Questions not yet answered or dismissed. */
  questions?: Array<string>
}

const MODEL: ModelRef = { providerID: "offline", id: "echo" }
const OTHER_MODEL: ModelRef = { providerID: "local", id: "test-model", variant: "fast" }
const tokens = (op: number, step: number) => ({
  input: op,
  output: step,
  reasoning: op % 3,
  cache: { read: op % 5, write: op % 2 },
})

/** The prompt or notice drafts for new input: the inbox behind a running turn, else the transcript. */
const inputDraft = (id: string, kind: "prompt" | "synthetic", text: string, op: number, queued: boolean): Draft => {
  if (kind === "synthetic") {
    const notice = {
      messageID: id,
      text,
      origin: op % 2 ? "plugin:test" : "host",
      ...(op % 4 === 0 ? { description: "a notice" } : {}),
    }
    return queued ? draft(E.SyntheticQueued, { ...notice, resume: op % 3 !== 0 }) : draft(E.Synthetic, notice)
  }
  const prompt = {
    messageID: id,
    prompt: {
      text,
      ...(op % 5 === 0 ? { files: [{ uri: `file:///tmp/${text}.txt`, mime: "text/plain", name: `${text}.txt` }] } : {}),
      ...(op % 7 === 0 ? { agents: [{ name: "plan" }] } : {}),
    },
    delivery: op % 2 ? ("queue" as const) : ("steer" as const),
    origin: "user",
    ...(op % 3 === 0 ? { agent: "plan" } : {}),
    ...(op % 4 === 1 ? { model: OTHER_MODEL } : {}),
  }
  return queued
    ? draft(E.Prompted, { ...prompt, ...(op % 4 === 0 ? { resume: false } : {}) })
    : draft(E.PromptAdmitted, prompt)
}

/** Delivering queued input (at a turn boundary or when steering) commits it as it waited, under its id. */
const deliver = (queued: Input) => inputDraft(queued.id, queued.kind, queued.text, queued.op, false)

/** The checkpoint of what the open item streamed since the last one. */
const checkpoint = (assistant: Assistant): Draft | undefined => {
  const open = assistant.open!
  if (open.text.length === open.committed) return undefined
  const offset = open.committed
  open.committed = open.text.length
  const text = open.text.slice(offset)
  const made =
    open.type === "text"
      ? draft(E.TextAppended, { assistantMessageID: assistant.id, textID: open.id, offset, text })
      : draft(E.ReasoningAppended, { assistantMessageID: assistant.id, reasoningID: open.id, offset, text })
  open.last = made
  return made
}

/** Ends the open item with its whole text. */
const end = (assistant: Assistant): Array<Draft> => {
  const open = assistant.open
  if (!open) return []
  assistant.open = undefined
  return [
    open.type === "text"
      ? draft(E.TextEnded, { assistantMessageID: assistant.id, textID: open.id, text: open.text })
      : draft(E.ReasoningEnded, {
          assistantMessageID: assistant.id,
          reasoningID: open.id,
          text: open.text,
          ...(open.text.length % 2 ? { providerMetadata: { test: { signature: open.text.length } } } : {}),
        }),
  ]
}

/** Fails the calls of a message that never finished (what an interrupt or a cut-off settles). */
const settle = (assistant: Assistant, message: string): Array<Draft> =>
  assistant.items.flatMap((item) => {
    if (item.type !== "tool" || (item.status !== "pending" && item.status !== "running")) return []
    item.status = "error"
    return [
      draft(E.ToolFailed, {
        assistantMessageID: assistant.id,
        callID: item.callID!,
        error: { type: "unknown", name: "Interrupted", message },
        provider: { executed: false },
      }),
    ]
  })

/** Action codes by `op % 20`: 0-15 once each, then tool calls (6) and streaming (4, 6) again, and removal (11). */
const ACTIONS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 6, 6, 4, 11] as const
type Action = (typeof ACTIONS)[number]

export const applyOps = (ops: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    const sessions = new Map<string, SessionModel>()
    for (const [step, op] of ops.entries()) {
      const ids = [...sessions.keys()]
      const pick = Math.floor(op / (ACTIONS.length * 256))
      const sessionID = ids.length > 0 && pick % 32 !== 0 ? ids[pick % ids.length]! : undefined
      if (!sessionID) {
        const id = ascending("ses")
        sessions.set(id, { inbox: [], inputs: [], completed: [], asks: [] })
        yield* bus.commit(id, [
          draft(E.Created, {
            title: `s${step}`,
            location: { directory: "/tmp" },
            ...(op % 2 ? { agent: "build" } : {}),
            ...(op % 3 === 0 ? { model: MODEL } : {}),
            ...(ids.length > 0 && op % 4 === 0 ? { parentID: ids[0]! } : {}),
          }),
        ])
        continue
      }
      const s = sessions.get(sessionID)!
      const drafts: Array<Draft> = []
      // `op % 20` chooses the action (streaming and tool calls twice as often: they take several steps);
      // the next digits choose its variant, independently of the action.
      const chosen = ACTIONS[op % ACTIONS.length]!
      const r = Math.floor(op / ACTIONS.length) % 256
      const text = `t${step}-${"x".repeat(r % 7)}`
      // An action that does not apply in the session's state falls back to its next natural step (a turn,
      // a step, streaming, a tool call, the step's end), so every op moves some history forward.
      const progress: Action = !s.claim
        ? ([11, 11, 9, 10, 12, 1, 2] as const)[r % 7]!
        : !s.assistant
          ? ([2, 8] as const)[r % 2]!
          : ([4, 6, 6, 7] as const)[r % 4]!
      for (const kind of [chosen, progress]) {
        const open = s.assistant
        if (kind === 0) {
          drafts.push(draft(E.Renamed, { title: text }))
          const ask = s.asks.shift()
          if (ask) {
            const reply = (["once", "always", "reject"] as const)[r % 3]!
            drafts.push(draft(E.PermissionReplied, { requestID: ask, reply, ...(r % 2 ? { message: text } : {}) }))
          }
        } else if (kind === 1 || (kind === 2 && !s.claim && r % 3 === 0)) {
          const input: Input = {
            id: ascending("msg"),
            kind: r % 3 ? "prompt" : "synthetic",
            text,
            op: r,
            retracted: false,
          }
          if (s.claim) s.inbox.push(input)
          else s.inputs.push(input)
          drafts.push(inputDraft(input.id, input.kind, text, r, s.claim !== undefined))
          // Idle input that wakes the session starts a turn in the same commit, as admission does.
          if (!s.claim && r % 4 === 3) {
            s.claim = ascending("trn")
            drafts.push(
              draft(E.TurnStarted, { turnID: s.claim, reason: input.kind === "prompt" ? "prompt" : "synthetic" }),
            )
          }
        } else if (kind === 2 && s.claim && !open) {
          // Steering: queued prompts join the running turn before its next step.
          for (const queued of s.inbox.filter((i) => i.kind === "prompt" && r % 2)) {
            s.inbox = s.inbox.filter((i) => i !== queued)
            s.inputs.push(queued)
            drafts.push(deliver(queued))
          }
          const assistant: Assistant = { id: ascending("msg"), items: [] }
          s.assistant = assistant
          drafts.push(
            draft(E.StepStarted, {
              assistantMessageID: assistant.id,
              turnID: s.claim,
              agent: "build",
              model: r % 2 ? MODEL : OTHER_MODEL,
              ...(r % 5 === 0 ? { snapshot: `snap-${step}` } : {}),
            }),
          )
        } else if (kind === 2 && !s.claim) {
          s.claim = ascending("trn")
          drafts.push(
            draft(E.TurnStarted, {
              turnID: s.claim,
              reason: (["prompt", "synthetic", "resume", "compact"] as const)[r % 4]!,
            }),
          )
        } else if (kind === 3 && s.claim) {
          // A restart: what the killed process left open is settled (the streaming item keeps the text of its
          // last checkpoint, never ended), the restart notice is delivered, and the same turn resumes.
          if (open) {
            open.open = undefined
            drafts.push(
              ...settle(open, "the server stopped while this answer was streaming"),
              draft(E.StepFailed, {
                assistantMessageID: open.id,
                error: { type: "unknown", name: "Interrupted", message: "cut off" },
                finish: "interrupted",
              }),
            )
            s.completed.push(open)
            s.assistant = undefined
          }
          const notice: Input = {
            id: ascending("msg"),
            kind: "synthetic",
            text: `restarted ${text}`,
            op,
            retracted: false,
          }
          s.inputs.push(notice)
          drafts.push(
            draft(E.Synthetic, { messageID: notice.id, text: notice.text, origin: "host" }),
            draft(E.TurnResumed, { turnID: s.claim, attempt: (r % 5) + 1 }),
          )
        } else if (kind === 4 && open) {
          // Streaming: a new text or reasoning item, or more of the open one, checkpointed now and then.
          if (!open.open || r % 9 === 0) {
            drafts.push(...end(open))
            const type = r % 3 ? "text" : "reasoning"
            const id = ascending("prt")
            open.open = { id, type, text: "", committed: 0 }
            open.items.push({ id, type })
            drafts.push(
              type === "text"
                ? draft(E.TextStarted, { assistantMessageID: open.id, textID: id })
                : draft(E.ReasoningStarted, {
                    assistantMessageID: open.id,
                    reasoningID: id,
                    ...(r % 2 ? { providerMetadata: { test: { started: step } } } : {}),
                  }),
            )
          }
          open.open!.text += `${text} `
          if (r % 2 === 0) {
            const made = checkpoint(open)
            if (made) drafts.push(made)
          } else if (r % 5 === 1 && open.open!.last) {
            // The same checkpoint once more (a retried commit): it changes nothing.
            drafts.push(open.open!.last)
          }
        } else if (kind === 5 && open?.open) {
          const made = checkpoint(open)
          drafts.push(...(made && r % 2 ? [made] : []), ...end(open))
        } else if (kind === 6 && open) {
          drafts.push(...end(open))
          const pending = open.items.find((i) => i.type === "tool" && i.status === "pending")
          const running = open.items.find((i) => i.type === "tool" && i.status === "running")
          if (running && r % 8 !== 7) {
            const output = `${text} output`.repeat(2)
            if (r % 4 === 0)
              drafts.push(
                draft(E.ToolProgress, {
                  assistantMessageID: open.id,
                  callID: running.callID!,
                  structured: { progress: step },
                  content: [{ type: "text", text: `${text} so far` }],
                }),
              )
            else if (r % 4 !== 1) {
              running.status = "completed"
              drafts.push(
                draft(E.ToolSuccess, {
                  assistantMessageID: open.id,
                  callID: running.callID!,
                  structured: { diff: `-${text}\n+${text}!` },
                  content: [{ type: "text", text: output }],
                  provider: { executed: false },
                  title: `edit ${text}`,
                  ...(r % 5 === 0 ? { outputPaths: [`/tmp/${text}`], result: { lines: op } } : {}),
                }),
              )
            } else {
              running.status = "error"
              drafts.push(
                draft(E.ToolFailed, {
                  assistantMessageID: open.id,
                  callID: running.callID!,
                  error: { type: "unknown", name: "Tool.Error", message: `${text} failed` },
                  provider: { executed: false },
                  ...(r % 5 === 0 ? { structured: { exit: 1 }, title: `bash ${text}` } : {}),
                }),
              )
            }
          } else if (pending && r % 4 !== 3) {
            // The call runs (after its permission, if one was asked), or its permission was rejected.
            if (r % 5 === 0) {
              pending.status = "error"
              drafts.push(
                draft(E.ToolFailed, {
                  assistantMessageID: open.id,
                  callID: pending.callID!,
                  error: { type: "unknown", name: "Permission.RejectedError", message: "rejected" },
                  provider: { executed: false },
                }),
              )
            } else {
              pending.status = "running"
              drafts.push(
                draft(E.ToolCalled, {
                  assistantMessageID: open.id,
                  callID: pending.callID!,
                  tool: "edit",
                  input: { path: text, oldString: text, newString: `${text}!` },
                  provider: { executed: false },
                  itemID: pending.id,
                  ...(r % 2 ? { title: `edit ${text}` } : {}),
                }),
              )
            }
          } else {
            const item: Item = { id: ascending("prt"), type: "tool", callID: `call_${step}`, status: "pending" }
            open.items.push(item)
            if (r % 7 === 0) {
              // A provider that sends whole calls: the item starts when it runs.
              item.status = "running"
              drafts.push(
                draft(E.ToolCalled, {
                  assistantMessageID: open.id,
                  callID: item.callID!,
                  tool: "read",
                  input: { path: text },
                  provider: { executed: false },
                  itemID: item.id,
                }),
              )
            } else {
              drafts.push(
                draft(E.ToolInputStarted, {
                  assistantMessageID: open.id,
                  callID: item.callID!,
                  name: "edit",
                  itemID: item.id,
                }),
                draft(E.ToolInputEnded, {
                  assistantMessageID: open.id,
                  callID: item.callID!,
                  text: JSON.stringify({ path: text, oldString: text, newString: `${text}!` }),
                }),
              )
              if (r % 2) {
                const requestID = ascending("per")
                s.asks.push(requestID)
                drafts.push(
                  draft(E.PermissionAsked, {
                    id: requestID,
                    action: "edit",
                    resources: [text],
                    ...(r % 3 === 0 ? { save: [`${text}*`] } : {}),
                    metadata: { diff: `-${text}\n+${text}!` },
                    source: { type: "tool", messageID: open.id, callID: item.callID! },
                    itemID: item.id,
                    tool: "edit",
                    title: `edit ${text}`,
                    input: { path: text, oldString: text, newString: `${text}!` },
                  }),
                )
              }
            }
          }
        } else if (kind === 7 && open) {
          // The step ends: streamed items end first; unfinished calls fail on a failed step.
          drafts.push(...end(open))
          const unsettled = open.items.some(
            (i) => i.type === "tool" && (i.status === "pending" || i.status === "running"),
          )
          if (unsettled || r % 4 === 0) {
            drafts.push(
              ...settle(open, "the turn was interrupted"),
              draft(E.StepFailed, {
                assistantMessageID: open.id,
                error: { type: "unknown", name: r % 2 ? "Interrupted" : "Provider.Error", message: `failed ${text}` },
                ...(r % 3 === 0 ? { finish: "interrupted" } : {}),
                ...(r % 2 ? { tokens: tokens(op, step) } : {}),
              }),
            )
          } else {
            drafts.push(
              draft(E.StepEnded, {
                assistantMessageID: open.id,
                finish: open.items.some((i) => i.type === "tool") ? "tool-calls" : "stop",
                cost: (r % 10) / 100,
                tokens: tokens(op, step),
                ...(r % 5 === 0 ? { snapshot: `end-${step}`, files: [`/tmp/${text}`] } : {}),
              }),
            )
          }
          s.completed.push(open)
          s.assistant = undefined
        } else if (kind === 8 && s.claim && !open) {
          drafts.push(
            draft(E.TurnEnded, {
              turnID: s.claim,
              outcome: (["completed", "interrupted", "failed"] as const)[r % 3]!,
              ...(r % 3 === 2 ? { error: { type: "unknown", name: "Provider.Error", message: "gave up" } } : {}),
            }),
          )
          s.claim = undefined
          // Deliver what waited in the inbox at the boundary, as the turn loop does.
          for (const queued of s.inbox.splice(0)) {
            s.inputs.push(queued)
            drafts.push(deliver(queued))
          }
        } else if (kind === 9 && !s.claim) {
          // A correction: a prompt's or notice's own text, or an assistant text item.
          const texts = s.completed.flatMap((m) => m.items.filter((i) => i.type === "text").map((i) => ({ m, i })))
          const target = s.inputs.filter((m) => !m.retracted)[(r >> 5) % Math.max(1, s.inputs.length)]
          if (r % 2 && texts.length > 0) {
            const { m, i } = texts[(r >> 5) % texts.length]!
            drafts.push(
              draft(E.TextCorrected, { messageID: m.id, itemID: i.id, text: `corrected ${text}`, by: "plugin:test" }),
            )
          } else if (target) {
            drafts.push(draft(E.TextCorrected, { messageID: target.id, text: `corrected ${text}`, by: "user" }))
          }
        } else if (kind === 10 && s.claim && s.inbox.length > 0) {
          // Retracting queued input cancels its delivery; it enters the transcript retracted.
          const queued = s.inbox.splice((r >> 3) % s.inbox.length, 1)[0]!
          queued.retracted = true
          s.inputs.push(queued)
          drafts.push(draft(E.MessageRetracted, { messageID: queued.id, placeholder: "[retracted]", by: "user" }))
        } else if (kind === 10 && !s.claim) {
          const target = s.inputs.find((m) => !m.retracted && (m.kind === "synthetic") === (r % 2 === 1))
          if (target) {
            target.retracted = true
            drafts.push(
              draft(E.MessageRetracted, { messageID: target.id, placeholder: "[retracted]", by: "plugin:test" }),
            )
          }
        } else if (kind === 11 && !s.claim) {
          // One item at a time: a tool call is pruned (its item stays), a reasoning item is removed.
          const candidates = s.completed.flatMap((m) =>
            m.items.filter((i) => (i.type === "tool" && !i.pruned) || i.type === "reasoning").map((i) => ({ m, i })),
          )
          const pick = candidates[(r >> 4) % Math.max(1, candidates.length)]
          if (pick?.i.type === "tool") {
            pick.i.pruned = true
            drafts.push(
              draft(E.ToolPruned, {
                assistantMessageID: pick.m.id,
                callID: pick.i.callID!,
                itemID: pick.i.id,
                by: "user",
              }),
            )
          } else if (pick) {
            pick.m.items = pick.m.items.filter((i) => i !== pick.i)
            drafts.push(
              draft(E.ReasoningRemoved, { assistantMessageID: pick.m.id, reasoningID: pick.i.id, by: "user" }),
            )
          }
        } else if (kind === 12 && chosen === 12 && r % 5 === 0) {
          drafts.push(draft(E.Deleted, {}))
          sessions.delete(sessionID)
        } else if (kind === 12 && !s.claim) {
          const types =
            r % 3 === 0
              ? (["tool"] as const)
              : r % 3 === 1
                ? (["reasoning"] as const)
                : (["tool", "reasoning"] as const)
          const wanted = new Set<string>(types)
          const messages = s.completed
            .map((m) => ({ m, items: m.items.filter((i) => wanted.has(i.type) && !i.pruned) }))
            .filter((x) => x.items.length > 0)
          if (messages.length > 0) {
            for (const { m, items } of messages) {
              for (const item of items) item.pruned = true
              m.items = m.items.filter((i) => i.type !== "reasoning" || !items.includes(i))
            }
            drafts.push(
              draft(E.Pruned, {
                types: [...types],
                messages: messages.map(({ m, items }) => ({ messageID: m.id, itemIDs: items.map((i) => i.id) })),
                by: "user",
              }),
            )
          } else drafts.push(draft(E.Erased, { events: 0, fields: 0, bytes: 0, by: "user" }))
        } else if (kind === 13 && !s.claim && r % 5 === 0) {
          // Revert events. The generated ranges hide and remove no message the model still tracks (the
          // removal of real messages is proven end to end in the server's revert tests).
          const variant = (r >> 3) % 3
          const anchor = s.completed.at(-1)?.id ?? s.inputs.at(-1)?.id ?? ascending("msg")
          drafts.push(
            variant === 0
              ? draft(E.RevertStaged, {
                  revert: {
                    messageID: anchor,
                    seq: Number.MAX_SAFE_INTEGER - 1,
                    through: step,
                    files: [{ path: `f${step}.txt`, status: "modified", additions: 1, deletions: 1, patch: text }],
                    restored: [{ path: `f${step}.txt`, image: null, staged: null }],
                    conflicts: r % 2 ? [{ path: "g.txt", reason: text }] : [],
                  },
                })
              : variant === 1
                ? draft(E.RevertCleared, r % 2 ? { conflicts: [{ path: "g.txt", reason: text }] } : {})
                : draft(E.RevertCommitted, { messageID: anchor, after: Number.MAX_SAFE_INTEGER - 1, through: step }),
          )
        } else if (kind === 13 && r % 4 === 3) {
          // Questions (asked, answered or dismissed) and the todo list rewritten.
          const questions = (s.questions ??= [])
          const pending = (r >> 4) % 2 === 0 ? questions.shift() : undefined
          if (pending) {
            drafts.push(
              (r >> 5) % 2
                ? draft(E.QuestionReplied, { requestID: pending, answers: [[text]] })
                : draft(E.QuestionRejected, { requestID: pending }),
            )
          } else {
            const id = ascending("per")
            questions.push(id)
            drafts.push(
              draft(E.QuestionAsked, {
                id,
                questions: [{ question: text, header: "h", options: [{ label: "a", description: text }] }],
                ...(open ? { tool: { messageID: open.id, callID: `q${step}` } } : {}),
              }),
            )
          }
          drafts.push(
            draft(E.TodoUpdated, {
              todos: [
                { content: text, status: "pending", priority: "high" },
                { content: `${text}2`, status: "completed", priority: "low" },
              ].slice(0, r % 3),
            }),
          )
        } else if (kind === 13) {
          drafts.push(
            r % 2
              ? draft(E.AgentSwitched, { messageID: ascending("msg"), agent: r % 4 === 1 ? "plan" : "build" })
              : draft(E.ModelSwitched, { messageID: ascending("msg"), model: r % 4 === 0 ? OTHER_MODEL : MODEL }),
          )
        } else if (kind === 14 && s.claim && !open) {
          // A compaction inside a turn: its `recent` restates a prompt, which later corrections and
          // retractions restate again.
          const messageID = ascending("msg")
          const reason = r % 2 ? ("auto" as const) : ("manual" as const)
          const prompt = s.inputs.filter((m) => m.kind === "prompt").at(-1)
          drafts.push(draft(E.CompactionStarted, { messageID, reason }))
          if (r % 7 !== 0)
            drafts.push(
              draft(E.CompactionEnded, {
                messageID,
                reason,
                text: `summary ${text}`,
                recent: prompt ? `recent ${text}` : "",
                ...(prompt ? { promptID: prompt.id } : {}),
                through: step,
                ...(r % 3 === 0 ? { overflow: true as const } : {}),
                ...(r % 4 === 0 ? { model: MODEL, tokens: tokens(op, step) } : {}),
              }),
            )
        } else if (kind === 15 && s.claim) {
          drafts.push(
            draft(E.Retried, {
              attempt: (r % 3) + 1,
              delayMs: 1000,
              error: {
                message: `HTTP 429 ${text}`,
                isRetryable: true,
                ...(r % 2 ? { statusCode: 429, responseHeaders: { "retry-after": "1" } } : {}),
              },
            }),
          )
        }
        if (drafts.length > 0 || !sessions.has(sessionID)) break
      }
      if (drafts.length > 0) yield* bus.commit(sessionID, drafts)
    }
  })

export const opsArbitrary = (fcModule: typeof fc) =>
  fcModule.array(fcModule.nat({ max: 20 * 256 * 96 - 1 }), { minLength: 20, maxLength: 150 })
