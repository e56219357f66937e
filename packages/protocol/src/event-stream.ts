import { HttpApiSchema } from "effect/http-api"

/**
 * A server-sent-event stream as an endpoint's success: `text/event-stream` bytes, written by the server
 * frame by frame (each `data:` line one JSON event, with comment heartbeats).
 */
export const EventStream = HttpApiSchema.StreamUint8Array({ contentType: "text/event-stream" })

type Parameter = { readonly in?: string; readonly name?: string; readonly schema?: object }

/**
 * Documents an event-stream operation by what each frame carries: the 200 response names the event
 * schema (a component), as clients read `data:` lines, not bytes. Query parameters in `hidden` are
 * accepted but left out of the document, where a generated method must keep upstream's signature;
 * `patterns` restores the pattern of a string query parameter, which the query codec's schema drops.
 */
export const eventStreamDocument =
  (options: {
    readonly event: string
    readonly description: string
    readonly hidden?: ReadonlyArray<string>
    readonly patterns?: Readonly<Record<string, string>>
  }) =>
  (operation: Record<string, any>): Record<string, any> => ({
    ...operation,
    ...(Array.isArray(operation.parameters)
      ? {
          parameters: (operation.parameters as Array<Parameter>)
            .filter((parameter) => !(parameter.in === "query" && options.hidden?.includes(String(parameter.name))))
            .map((parameter) => {
              const pattern = parameter.in === "query" ? options.patterns?.[String(parameter.name)] : undefined
              return pattern === undefined ? parameter : { ...parameter, schema: { ...parameter.schema, pattern } }
            }),
        }
      : {}),
    responses: {
      ...operation.responses,
      "200": {
        description: options.description,
        content: { "text/event-stream": { schema: { $ref: `#/components/schemas/${options.event}` } } },
      },
    },
  })
