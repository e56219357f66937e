import {
  type EffectSession,
  type HookName,
  type PromiseSession,
  type SessionError,
  SessionInput,
} from "@opencode-ai/plugin"
import { Cause, type Context, Effect, Exit, Schema, SchemaIssue, Scope } from "effect"
import { resolveDirectory } from "../session/directory.ts"
import { ForbiddenError, InvalidInputError } from "../domain/error.ts"
import type { Message } from "../domain/message.ts"
import type { Execution } from "../turn/execution.ts"
import type { Erase } from "../maintenance/erase.ts"
import type { Mutation } from "../maintenance/mutation.ts"
import type { PrunableType, Prune } from "../maintenance/prune.ts"
import type { Session } from "../session/session.ts"
import { type Hooks, type Registration } from "../hooks/hooks.ts"

export interface HostServices {
  readonly session: Session["Service"]
  readonly execution: Execution["Service"]
  readonly mutation: Mutation["Service"]
  readonly prune: Prune["Service"]
  readonly erase: Erase["Service"]
  readonly hooks: Hooks["Service"]
  /** The admission check of an agent choice, as for prompts (see `session/choice.ts`). */
  readonly choice: (choice: { readonly agent?: string | undefined }) => Effect.Effect<void, InvalidInputError>
}

const PRUNABLE: ReadonlyArray<PrunableType> = ["tool", "reasoning"]

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A plugin's input decoded with its `SessionInput` Schema; a refusal is `Session.InvalidInputError` naming
 * the first field that is wrong (its message gives the whole path).
 */
const decodeInput = <S extends Schema.Codec<unknown, unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown): Effect.Effect<S["Type"], InvalidInputError> =>
    decode(input).pipe(
      Effect.mapError((error) => {
        const first = formatter(error.issue).issues[0]
        // The field is the input's own key (`types`, not `types.0`), as HTTP names a body's field.
        const path = first?.path?.map(String) ?? []
        const field = path[0]
        const message = `${path.join(".") || "input"}: ${first?.message ?? "invalid"}`
        return new InvalidInputError({ message, ...(field !== undefined ? { field } : {}) })
      }),
    )
}

const target = decodeInput(SessionInput.Target)
const decodeCreate = decodeInput(SessionInput.Create)
const decodePrompt = decodeInput(SessionInput.Prompt)
const decodeSynthetic = decodeInput(SessionInput.Synthetic)
const decodeMessages = decodeInput(SessionInput.Messages)
const decodePrune = decodeInput(SessionInput.Prune)
const decodeMessageTarget = decodeInput(SessionInput.MessageTarget)
const decodeCorrect = decodeInput(SessionInput.Correct)
const decodeItemTarget = decodeInput(SessionInput.ItemTarget)

/**
 * A plugin's transcript rights. `own` (default): correct and retract only messages whose origin is
 * `plugin:<id>`; `any` (granted in config): every message. Removing tool/reasoning parts, prune and erase
 * need no grant.
 */
export type TranscriptRights = "own" | "any"

/** The refusal for a plugin without rights over `message`, or nothing. */
export const transcriptGuard =
  (pluginID: string, rights: TranscriptRights, action: "correct" | "retract") =>
  (message: Message): ForbiddenError | undefined => {
    if (rights === "any" || message.origin === `plugin:${pluginID}`) return undefined
    return new ForbiddenError({
      sessionID: message.sessionID,
      messageID: message.id,
      pluginID,
      reason:
        `plugin "${pluginID}" may ${action} only its own messages (origin plugin:${pluginID}); this message's origin is ` +
        `${message.origin}. Grant it with { "path": ..., "transcript": "any" } in the config's plugin list`,
    })
  }

/**
 * The Effect flavour of the plugin session API for one plugin: host services with inputs checked and
 * every admitted message attributed to `plugin:<id>`. Failures are the core's tagged errors, whose `_tag`
 * and fields are the public contract.
 */
export const effectSession = (
  pluginID: string,
  services: HostServices,
  scope: Scope.Scope,
  transcript: TranscriptRights = "own",
): EffectSession => {
  const { session, execution, mutation, hooks, prune, erase } = services
  const origin = `plugin:${pluginID}`
  // Registrations live as long as the plugin's scope: unloading the plugin disposes them.
  const register = <K extends HookName>(name: K, registration: Registration<K>) =>
    Effect.suspend(() => {
      const dispose = hooks.register(name, registration)
      return Scope.addFinalizer(scope, Effect.sync(dispose))
    })
  return {
    hook: (name, callback) => register(name, { pluginID, run: (event) => callback(event as never) }),
    get: (input) => Effect.flatMap(target(input), ({ sessionID }) => session.get(sessionID)),
    create: (input = {}) =>
      Effect.gen(function* () {
        const { title, directory: given, agent } = yield* decodeCreate(input)
        // The same rules as `POST /api/session`: an unknown agent is refused, and tools are confined to
        // the directory, so it is stored as the realpath of an existing one; a refusal stores nothing.
        yield* services.choice({ agent })
        const directory = yield* resolveDirectory(given ?? process.cwd(), "directory")
        return yield* session.create({
          ...(title !== undefined ? { title } : {}),
          directory,
          ...(agent !== undefined ? { agent } : {}),
        })
      }),
    prompt: (input) =>
      Effect.gen(function* () {
        const { sessionID, text, agent } = yield* decodePrompt(input)
        return yield* execution.prompt({ sessionID, prompt: { text }, origin, ...(agent ? { agent } : {}) })
      }),
    synthetic: (input) =>
      Effect.gen(function* () {
        const { sessionID, text, description, resume } = yield* decodeSynthetic(input)
        return yield* execution.synthetic({
          sessionID,
          text,
          origin,
          ...(description !== undefined ? { description } : {}),
          ...(resume !== undefined ? { resume } : {}),
        })
      }),
    interrupt: (input) => Effect.flatMap(target(input), ({ sessionID }) => execution.interrupt(sessionID)),
    wait: (input) => Effect.flatMap(target(input), ({ sessionID }) => execution.wait(sessionID)),
    resume: (input) => Effect.flatMap(target(input), ({ sessionID }) => Effect.asVoid(execution.resume(sessionID))),
    messages: (input) =>
      Effect.gen(function* () {
        const { sessionID, cursor, limit, order } = yield* decodeMessages(input)
        return yield* session.messages(sessionID, {
          ...(cursor !== undefined ? { cursor } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(order !== undefined ? { order } : {}),
        })
      }),
    prune: (input) =>
      Effect.gen(function* () {
        const { sessionID, types = PRUNABLE } = yield* decodePrune(input)
        return yield* prune.session({ sessionID, types, by: origin })
      }),
    erase: (input) => Effect.flatMap(target(input), ({ sessionID }) => erase.session({ sessionID, by: origin })),
    message: {
      get: (input) =>
        Effect.flatMap(decodeMessageTarget(input), ({ sessionID, messageID }) => session.message(sessionID, messageID)),
      update: (input) =>
        Effect.gen(function* () {
          const { sessionID, messageID, itemID, text } = yield* decodeCorrect(input)
          return yield* mutation.correct({
            sessionID,
            messageID,
            ...(itemID !== undefined ? { itemID } : {}),
            text,
            by: origin,
            authorize: transcriptGuard(pluginID, transcript, "correct"),
          })
        }),
      remove: (input) =>
        Effect.gen(function* () {
          const { sessionID, messageID } = yield* decodeMessageTarget(input)
          return yield* mutation.retract({
            sessionID,
            messageID,
            by: origin,
            authorize: transcriptGuard(pluginID, transcript, "retract"),
          })
        }),
    },
    item: {
      remove: (input) =>
        Effect.gen(function* () {
          const { sessionID, messageID, itemID } = yield* decodeItemTarget(input)
          return yield* mutation.removeItem({
            sessionID,
            messageID,
            itemID,
            by: origin,
          })
        }),
    },
  }
}

/** A failure as a Promise plugin sees it: a plain `{ _tag, ...fields, message }` object. */
export const toPlainError = (cause: Cause.Cause<unknown>): SessionError | { _tag: "UnknownError"; message: string } => {
  const failure = cause.reasons.find((r) => r._tag === "Fail")
  const error = failure?._tag === "Fail" ? failure.error : Cause.squash(cause)
  if (typeof error === "object" && error !== null && typeof (error as { _tag?: unknown })._tag === "string") {
    const fields: Record<string, unknown> = {}
    for (const key of Object.keys(error)) fields[key] = (error as Record<string, unknown>)[key]
    return {
      ...fields,
      _tag: (error as { _tag: string })._tag,
      message: String((error as Error).message ?? ""),
    } as SessionError
  }
  return { _tag: "UnknownError", message: error instanceof Error ? error.message : String(error) }
}

/**
 * The Promise flavour: the same operations run on the host runtime; failures reject with plain tagged
 * objects so plugins compare `_tag` (exactly like `ctx.session.get` on a missing session).
 */
export const promiseSession = (
  effect: EffectSession,
  pluginID: string,
  hooks: Hooks["Service"],
  track: (dispose: () => void) => () => void,
  /** The host's services (its logger and level among them): a plugin's calls run with them, not the default runtime's. */
  host: Context.Context<never>,
): PromiseSession => {
  const run = <A>(program: Effect.Effect<A, unknown>): Promise<A> =>
    Effect.runPromiseExitWith(host)(program).then((exit) =>
      Exit.isSuccess(exit) ? exit.value : Promise.reject(toPlainError(exit.cause)),
    )
  return {
    hook: (name, callback) =>
      track(
        hooks.register(name, {
          pluginID,
          run: (event) => Effect.tryPromise({ try: async () => callback(event as never), catch: (cause) => cause }),
        }),
      ),
    get: (input) => run(effect.get(input)),
    create: (input) => run(effect.create(input)),
    prompt: (input) => run(effect.prompt(input)),
    synthetic: (input) => run(effect.synthetic(input)),
    interrupt: (input) => run(effect.interrupt(input)),
    wait: (input) => run(effect.wait(input)),
    resume: (input) => run(effect.resume(input)),
    messages: (input) => run(effect.messages(input)),
    prune: (input) => run(effect.prune(input)),
    erase: (input) => run(effect.erase(input)),
    message: {
      get: (input) => run(effect.message.get(input)),
      update: (input) => run(effect.message.update(input)),
      remove: (input) => run(effect.message.remove(input)),
    },
    item: { remove: (input) => run(effect.item.remove(input)) },
  }
}
