/**
 * Every route the server documents, read from its own OpenAPI document (so routes added later are
 * covered too), with path parameters filled in from a small real transcript.
 */
import { openApiDocument } from "../../src/api/openapi.ts"
import type { TestServer } from "./server.ts"

export interface RouteCase {
  readonly method: string
  /** The OpenAPI path, e.g. `/api/session/{sessionID}`. */
  readonly template: string
  readonly params: ReadonlyArray<string>
  /** Whether the route answers with a server-sent-event stream. */
  readonly stream: boolean
  /** Whether the operation declares a request body. */
  readonly body: boolean
}

export const documentedRoutes = (): ReadonlyArray<RouteCase> => {
  const paths = openApiDocument().paths as Record<string, Record<string, Record<string, unknown>>>
  const out: Array<RouteCase> = []
  for (const [template, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>
      out.push({
        method: method.toUpperCase(),
        template,
        params: [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
        stream: Object.keys(responses["200"]?.content ?? {}).includes("text/event-stream"),
        body: operation.requestBody !== undefined,
      })
    }
  }
  return out
}

export interface Ids {
  readonly sessionID: string
  readonly messageID: string
  readonly partID: string
  readonly [name: string]: string
}

/** A session with one finished turn (offline provider): the ids of its user message and text part. */
export const seedTranscript = async (server: TestServer, text = "hello"): Promise<Ids> => {
  const session = (await server.client.session.create({ body: { title: "seed" } })).data!
  await server.client.session.prompt({ path: { sessionID: session.id }, body: { text } })
  await server.client.session.wait({ path: { sessionID: session.id } })
  const messages = (await server.client.message.list({ path: { sessionID: session.id } })).data!.items
  const user = messages.find((message) => message.type === "user")!
  return {
    sessionID: session.id,
    messageID: user.id,
    partID: user.parts[0]!.id,
    permissionID: "per_0000000000000000000000000",
  }
}

/** The concrete path for a route, with `ids` (or `override`) in place of its parameters. */
export const fill = (
  template: string,
  ids: Readonly<Record<string, string>>,
  override: Readonly<Record<string, string>> = {},
) => template.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? ids[name] ?? `${name}_missing`)
