import type { TitleEvent } from "@opencode-ai/plugin"
import { Effect, Fiber, Layer, Stream } from "effect"
import { Bus, isDurable } from "../bus/bus.ts"
import { Config } from "../config/config.ts"
import { Hooks, hookTimeout } from "../hooks/hooks.ts"
import { Providers } from "../provider/registry.ts"
import { withRetry } from "../provider/retry.ts"
import { selectAgent } from "./agent.ts"
import { sessionModel } from "./compaction.ts"
import { SessionEvent } from "../domain/event.ts"
import type { ModelMessage, SystemPart } from "../domain/model-request.ts"
import { shapeModelRequest } from "./model-request-hook.ts"
import { retryHook } from "./retry-hook.ts"
import { Session } from "../session/session.ts"

/** The title `Session.create` gives a session without one (the same literal): only such sessions get a generated title. */
export const DEFAULT_TITLE = "New session"

/** The longest title kept; a longer answer is cut at a word boundary. */
export const TITLE_MAX = 80
const PROMPT_MAX = 4000

const TITLE_PROMPT =
  "You write the title of a conversation. Answer with the title only: at most eight words, no quotes, " +
  "no trailing punctuation, in the language of the user's message."

/** A model's answer as a title: the first non-empty line, unquoted, whitespace collapsed, bounded. */
export const cleanTitle = (text: string): string => {
  const line = (text.split("\n").find((l) => l.trim().length > 0) ?? "").trim()
  const bare = line
    .replace(/^["'`“”‘’]+|["'`“”‘’]+$/g, "")
    .replace(/[.。]+$/, "")
    .replace(/\s+/g, " ")
    .trim()
  if (bare.length <= TITLE_MAX) return bare
  const cut = bare.slice(0, TITLE_MAX)
  const space = cut.lastIndexOf(" ")
  return (space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trim()
}

/**
 * Title generation: when a session's first turn ends (the turn of its first assistant message) and its
 * title is still the default, the host makes one model request for a title, in the background (the next
 * turn never waits for it), and sets it through `Session.rename`, so it is a `session.next.renamed` event
 * like any rename. The `title` hook runs first and may set the title (no request) or veto it; the request
 * then passes `model.request` and `retry` like any other (kind `title`). A title the user set meanwhile is
 * kept. Failures are logged; the session keeps its title. `title.auto: false` turns this off.
 */
export const TitleLayer = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* Config
    if (config.data.title?.auto === false) return
    const bus = yield* Bus
    const session = yield* Session
    const hooks = yield* Hooks
    const providers = yield* Providers
    const host = yield* Effect.context<never>()
    const timeout = hookTimeout(config.data)
    const running = new Map<string, Fiber.Fiber<void>>()

    const firstTurn = (sessionID: string, turnID: string) => {
      const row = session.sync.row(sessionID)
      if (!row || row.title !== DEFAULT_TITLE || row.parent_id) return undefined
      const transcript = session.sync.transcript(sessionID)
      const first = transcript.find((m) => m.type === "assistant")
      if (first?.type !== "assistant" || first.turnID !== turnID) return undefined
      const prompt = transcript.find((m) => m.type === "user" && !m.retracted && m.text.trim().length > 0)
      return prompt?.type === "user" ? { row, text: prompt.text.slice(0, PROMPT_MAX) } : undefined
    }

    const generate = (sessionID: string, text: string) =>
      Effect.gen(function* () {
        const model = sessionModel(session.sync, config.data, providers, sessionID)
        const agentID = selectAgent(config.data, session.sync.row(sessionID)?.agent ?? undefined).id
        const system: Array<SystemPart> = [
          { type: "text", id: "host:title", text: TITLE_PROMPT, origin: { type: "host", name: "default" } },
        ]
        const messages: Array<ModelMessage> = [{ role: "user", content: [{ type: "text", text }] }]
        const event: TitleEvent = { sessionID, model, system, messages }
        yield* hooks.run("title", event, { timeout })
        if (event.veto === true) return
        let title: string
        if (typeof event.title === "string") title = cleanTitle(event.title)
        else {
          const client = yield* providers.client(model)
          const scope = { sessionID, agentID, model, kind: "title" } as const
          const request = yield* shapeModelRequest(
            hooks,
            scope,
            {
              model,
              system: Array.isArray(event.system) ? event.system : system,
              messages: Array.isArray(event.messages) ? event.messages : messages,
              tools: [],
            },
            timeout,
          )
          let answer = ""
          // The session is idle: a wait here is not the turn's, so it shows no `retrying` status.
          yield* withRetry(() => client.stream(request), providers.retries(model.providerID), {
            onRetry: () => Effect.void,
            onResume: Effect.void,
            decide: retryHook(hooks, scope, timeout),
          }).pipe(
            Stream.runForEach((part) =>
              Effect.sync(() => {
                if (part.type === "text-delta") answer += part.text
              }),
            ),
          )
          title = cleanTitle(answer)
        }
        // A title set meanwhile (by the user, a plugin) wins over the generated one.
        if (title.length === 0 || session.sync.row(sessionID)?.title !== DEFAULT_TITLE) return
        yield* session.rename(sessionID, title)
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.logWarning("session title generation failed", cause).pipe(Effect.annotateLogs({ sessionID })),
        ),
      )

    const unsubscribe = bus.subscribe((event) => {
      if (!isDurable(event) || event.type !== SessionEvent.TurnEnded.type) return
      if (running.has(event.sessionID)) return
      const first = firstTurn(event.sessionID, (event.data as { turnID: string }).turnID)
      if (!first) return
      const sessionID = event.sessionID
      const fiber = Effect.runForkWith(host)(
        generate(sessionID, first.text).pipe(Effect.ensuring(Effect.sync(() => running.delete(sessionID)))),
      )
      if (fiber.pollUnsafe() === undefined) running.set(sessionID, fiber)
    })
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        unsubscribe()
        yield* Fiber.interruptAll([...running.values()])
      }),
    )
  }),
)
