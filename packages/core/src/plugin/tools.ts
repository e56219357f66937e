import {
  type EffectToolContext,
  type EffectToolDefinition,
  type PromiseToolContext,
  type PromiseToolDefinition,
  TOOL_PERMISSION_KINDS,
  ToolPermissionError,
  ToolPermissionKindError,
  ToolRegistrationError,
  type ToolOutput,
} from "@opencode-ai/plugin"
import { type Context, Effect, Exit, Schema } from "effect"
import type { Mutation } from "../maintenance/mutation.ts"
import { toModelTool } from "../tool/registry.ts"
import { ToolError, type Tool, type ToolContext, type ToolPlan, type ToolResult } from "../tool/tool.ts"
import { toPlainError } from "./context.ts"

/** Model APIs accept tool names of letters, digits, `_` and `-`; most cap them at 64 characters. */
const TOOL_ID = /^[A-Za-z0-9_-]{1,64}$/

const describe = (cause: unknown) => {
  if (cause instanceof Error) return cause.message
  if (typeof cause === "object" && cause !== null && "message" in cause)
    return String((cause as { message: unknown }).message)
  return String(cause)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Whether a Schema is a struct without fields. */
const noFields = (schema: Schema.Top) => {
  const ast = schema.ast as {
    _tag: string
    propertySignatures?: ReadonlyArray<unknown>
    indexSignatures?: ReadonlyArray<unknown>
  }
  return ast._tag === "Objects" && ast.propertySignatures?.length === 0 && ast.indexSignatures?.length === 0
}

/** The dependencies a plugin tool's context needs beyond the call's own. */
export interface PluginToolDeps {
  readonly mutation: Mutation["Service"]
}

/**
 * A plugin's tool definition as a host tool: checked now (id, description, an object Schema), planned
 * under the `plugin` permission with its id as the pattern, run with the plugin's context. Whatever the
 * plugin's `execute` throws, rejects or fails with becomes that call's `ToolError`, naming the plugin.
 */
export const makePluginTool = (
  pluginID: string,
  definition: PromiseToolDefinition | EffectToolDefinition,
  flavour: "promise" | "effect",
  deps: PluginToolDeps,
): Effect.Effect<Tool, ToolRegistrationError> =>
  Effect.gen(function* () {
    const id = (definition as { id?: unknown })?.id
    const refuse = (message: string) =>
      new ToolRegistrationError({ pluginID, tool: typeof id === "string" ? id : String(id), message })
    if (typeof id !== "string" || !TOOL_ID.test(id))
      return yield* refuse(`a tool id must be 1 to 64 letters, digits, "_" or "-"; got ${JSON.stringify(id)}`)
    if (typeof definition.description !== "string" || definition.description.trim() === "")
      return yield* refuse(`tool "${id}" needs a description`)
    if (!Schema.isSchema(definition.parameters)) return yield* refuse(`tool "${id}": parameters must be a Schema`)
    if (typeof definition.execute !== "function") return yield* refuse(`tool "${id}" needs an execute function`)

    const failure = (message: string) => new ToolError({ tool: id, pluginID, message })
    const failed = (cause: unknown) =>
      failure(
        cause instanceof ToolPermissionError || cause instanceof ToolPermissionKindError
          ? cause.message
          : `tool "${id}" of plugin "${pluginID}" failed: ${describe(cause)}`,
      )
    const toResult = (value: ToolOutput): Effect.Effect<ToolResult, ToolError> => {
      if (typeof value === "string") return Effect.succeed({ output: value })
      if (isRecord(value) && typeof value.output === "string") {
        return Effect.succeed({
          output: value.output,
          ...(typeof value.title === "string" ? { title: value.title } : {}),
          ...(isRecord(value.metadata) ? { metadata: value.metadata } : {}),
        })
      }
      return Effect.fail(
        failure(`tool "${id}" of plugin "${pluginID}" returned neither a string nor { output: string }`),
      )
    }

    const askOf =
      (ctx: ToolContext) =>
      (
        request: Parameters<PromiseToolContext["ask"]>[0],
      ): Effect.Effect<void, ToolPermissionError | ToolPermissionKindError> => {
        const patterns = Array.isArray(request?.patterns) ? request.patterns.map(String) : []
        const kind: unknown = request?.kind
        if (typeof kind !== "string" || !TOOL_PERMISSION_KINDS.includes(kind as never))
          return Effect.fail(
            new ToolPermissionKindError({
              tool: id,
              kind: String(kind),
              message: `tool "${id}" asked for unknown permission kind ${JSON.stringify(kind) ?? String(kind)}; kinds: ${TOOL_PERMISSION_KINDS.join(", ")}`,
            }),
          )
        if (!ctx.ask)
          return Effect.fail(
            new ToolPermissionError({
              tool: id,
              kind: String(request?.kind),
              patterns,
              reason: "denied",
              message: `tool "${id}" asked for permission outside a session's turn`,
            }),
          )
        return ctx.ask({
          permission: request.kind,
          patterns,
          title: typeof request.title === "string" ? request.title : `${id} ${patterns.join(" ")}`.trim(),
          ...(isRecord(request.metadata) ? { metadata: request.metadata } : {}),
        })
      }
    const removeItemOf = (ctx: ToolContext) => (input: { readonly messageID: string; readonly itemID: string }) =>
      deps.mutation.removeItem({
        sessionID: ctx.sessionID,
        messageID: String(input?.messageID),
        itemID: String(input?.itemID),
        by: `plugin:${pluginID}`,
        ...(ctx.messageID && ctx.itemID ? { during: { messageID: ctx.messageID, itemID: ctx.itemID } } : {}),
      })
    const info = (ctx: ToolContext) => ({
      sessionID: ctx.sessionID,
      messageID: ctx.messageID ?? "",
      itemID: ctx.itemID ?? "",
      callID: ctx.callID ?? "",
      agent: ctx.agentID ?? "",
      directory: ctx.directory,
      signal: ctx.signal,
    })

    const run = (args: unknown, ctx: ToolContext): Effect.Effect<ToolResult, ToolError> => {
      const executed: Effect.Effect<ToolOutput, unknown> =
        flavour === "effect"
          ? Effect.suspend(() => {
              const ectx: EffectToolContext = { ...info(ctx), ask: askOf(ctx), removeItem: removeItemOf(ctx) }
              return (definition as EffectToolDefinition).execute(args, ectx)
            })
          : Effect.contextWith((context: Context.Context<never>) =>
              Effect.tryPromise({
                try: async (signal) => {
                  const ask = askOf(ctx)
                  const removeItem = removeItemOf(ctx)
                  const pctx: PromiseToolContext = {
                    ...info(ctx),
                    // Either the turn's interrupt or the fiber's.
                    signal: AbortSignal.any([ctx.signal, signal]),
                    ask: (request) =>
                      Effect.runPromiseExitWith(context)(ask(request)).then((exit) =>
                        Exit.isSuccess(exit) ? undefined : Promise.reject(toPlainError(exit.cause)),
                      ),
                    removeItem: (input) =>
                      Effect.runPromiseExitWith(context)(removeItem(input)).then((exit) =>
                        Exit.isSuccess(exit) ? exit.value : Promise.reject(toPlainError(exit.cause)),
                      ),
                  }
                  return (definition as PromiseToolDefinition).execute(args, pctx)
                },
                catch: (cause) => cause,
              }),
            )
      return executed.pipe(
        Effect.catchDefect((defect) => Effect.fail(defect)),
        Effect.mapError((cause) =>
          isRecord(cause) && cause["_tag"] === "Tool.PermissionError"
            ? failure(String(cause["message"]))
            : failed(cause),
        ),
        Effect.flatMap(toResult),
      )
    }

    const tool: Tool = {
      name: id,
      description: definition.description,
      input: definition.parameters,
      // `Schema.Struct({})` (a tool without arguments) has no object JSON Schema of its own.
      ...(noFields(definition.parameters) ? { parameters: { type: "object", properties: {} } } : {}),
      execute: (args, ctx) => Effect.map(run(args, ctx), (result) => result.output),
      plan: (args, ctx) =>
        Effect.succeed({
          permission: "plugin",
          patterns: [id],
          title: id,
          metadata: { plugin: { id: pluginID } },
          run: () => run(args, ctx),
        } satisfies ToolPlan),
    }
    // The model sees the Schema as a JSON Schema: one that does not describe an object is refused now.
    yield* Effect.try({ try: () => toModelTool(tool), catch: (cause) => refuse(describe(cause)) })
    return tool
  })
