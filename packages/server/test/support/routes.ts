/**
 * Every route the server documents, read from the committed contract's OpenAPI document (so routes added
 * later are covered too), with path parameters filled in from a small real transcript.
 */
import { openApiDocument } from "@opencode-ai/protocol"
import type { TestServer } from "./server.ts"

export interface RouteCase {
  readonly method: string
  /** The OpenAPI path, e.g. `/api/session/{sessionID}`; a trailing `*` is the rest of the path. */
  readonly template: string
  /** The path parameters, `*` included when the route takes the rest of the path. */
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
        params: [
          ...[...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!),
          ...(template.endsWith("/*") ? ["*"] : []),
        ],
        stream: Object.keys(responses["200"]?.content ?? {}).includes("text/event-stream"),
        body: operation.requestBody !== undefined,
      })
    }
  }
  return out
}

export interface Ids {
  readonly sessionID: string
  /** The user message of the seeded turn. */
  readonly messageID: string
  /** The assistant message that answered it. */
  readonly assistantID: string
  /** The assistant's text item. */
  readonly itemID: string
  /** A well-formed permission request id that is not pending. */
  readonly requestID: string
  readonly providerID: string
  /** The rest of a path (`fs.read`'s file). */
  readonly "*": string
  readonly [name: string]: string
}

/** A session with one finished turn (offline provider): the ids of its messages and of the answer's text item. */
export const seedTranscript = async (server: TestServer, text = "hello"): Promise<Ids> => {
  const created = await server.api.session.create({ title: "seed" })
  const sessionID = created.data!.data.id
  await server.api.session.prompt({ sessionID, prompt: { text } })
  await server.api.session.wait({ sessionID })
  const messages = (await server.api.session.messages({ sessionID })).data!.data
  const user = messages.find((message) => message.type === "user")!
  const assistant = messages.find((message) => message.type === "assistant")!
  if (assistant.type !== "assistant") throw new Error("the seeded turn has no answer")
  const item = assistant.content.find((entry) => entry.type === "text")!
  return {
    sessionID,
    messageID: user.id,
    assistantID: assistant.id,
    itemID: item.id,
    requestID: "per_0000000000000000000000000",
    providerID: "offline",
    "*": "missing.txt",
  }
}

/** The concrete path for a route, with `ids` (or `override`) in place of its parameters. */
export const fill = (
  template: string,
  ids: Readonly<Record<string, string>>,
  override: Readonly<Record<string, string>> = {},
) =>
  template
    .replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? ids[name] ?? `${name}_missing`)
    .replace(/\/\*$/, () => `/${override["*"] ?? ids["*"] ?? "missing"}`)
