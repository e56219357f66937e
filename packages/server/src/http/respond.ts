import { Schema, SchemaAST } from "effect"
import { HttpErrors, type HttpError } from "@opencode-ai/protocol"

const codecs = new Map<string, { status: number; encode: (error: HttpError) => unknown }>(
  HttpErrors.map((schema) => {
    const encode = Schema.encodeSync(schema as unknown as Schema.Codec<HttpError, unknown>)
    const status = (SchemaAST.resolve(schema.ast) as { httpApiStatus?: number } | undefined)?.httpApiStatus ?? 500
    return [schema.identifier, { status, encode }] as const
  }),
)

/**
 * A typed error answered outside the HttpApi pipeline (auth, body limit, the event streams, the last-resort
 * catch): the same tagged JSON body and status an endpoint would send.
 */
export const errorResponse = (error: HttpError, headers?: Record<string, string>) => {
  const { status, body } = encodeError(error)
  return Response.json(body, { status, ...(headers ? { headers } : {}) })
}

/** The status and JSON body of an HTTP error. */
export const encodeError = (error: HttpError) => {
  const codec = codecs.get(error._tag)!
  return { status: codec.status, body: codec.encode(error) }
}
