import type { ModelRequestEvent, RequestKind } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { HookError, type Hooks } from "../hooks/hooks.ts"
import type { ModelRequest } from "../domain/model-request.ts"

// RFC 9110 token characters; a value may not break the header line.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_VALUE = /^[^\r\n\0]*$/

const problem = (event: ModelRequestEvent): string | undefined => {
  const headers = event.headers as unknown
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) return "headers must be an object"
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `header name ${JSON.stringify(name)} is not a valid HTTP header name`
    if (typeof value !== "string" || !HEADER_VALUE.test(value))
      return `header ${name} must be a string without line breaks`
  }
  const options = event.options as unknown
  if (typeof options !== "object" || options === null || Array.isArray(options)) return "options must be an object"
  return undefined
}

/**
 * Runs the `model.request` hook on copies of a request's headers and options: the last hook before the
 * provider is called, for every kind of request. Without callbacks the request goes through untouched. A
 * plugin that leaves a header that cannot be sent (a bad name, a non-string or multi-line value) or options
 * that are not an object fails the request with a `Plugin.HookError` naming it; nothing of the hook applies.
 */
export const shapeModelRequest = (
  hooks: Hooks["Service"],
  scope: { readonly sessionID: string; readonly agentID: string; readonly kind: RequestKind },
  request: ModelRequest,
  timeout: number,
): Effect.Effect<ModelRequest, HookError> => {
  if (hooks.list("model.request").length === 0) return Effect.succeed({ ...request, kind: scope.kind })
  return Effect.gen(function* () {
    const event: ModelRequestEvent = {
      sessionID: scope.sessionID,
      agentID: scope.agentID,
      model: { ...request.model },
      kind: scope.kind,
      headers: { ...request.headers },
      options: structuredClone({ ...request.options }),
    }
    let refused: HookError | undefined
    yield* hooks.run("model.request", event, {
      timeout,
      each: (pluginID) => {
        const why = refused === undefined ? problem(event) : undefined
        if (why !== undefined) refused = new HookError({ pluginID, hook: "model.request", message: why })
      },
    })
    if (refused) return yield* refused
    return { ...request, kind: scope.kind, headers: { ...event.headers }, options: { ...event.options } }
  })
}
