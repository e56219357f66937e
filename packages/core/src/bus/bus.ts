import { Context, Effect, Layer, Schema } from "effect"
import { ascending } from "../id/id.ts"
import { Database } from "../storage/database.ts"
import { type Draft, type Durable, type Envelope, type Ephemeral, InvalidEventError, type Transient } from "./event.ts"
import { Projectors } from "./projector.ts"

export type BusEvent = Envelope | Transient
export type Listener = (event: BusEvent) => void

export const isDurable = (event: BusEvent): event is Envelope => "seq" in event

/**
 * A decision taken inside the commit transaction: the drafts to commit, or a typed rejection. Returning a
 * rejection rolls back and commits nothing, which is how admission checks stay atomic with their writes.
 */
export type Decision<E> = ReadonlyArray<Draft> | { readonly reject: E }

export interface BusShape {
  /** Whether committed events are also appended to the `event` journal. */
  readonly persist: boolean
  /** Commits drafts for one session in one IMMEDIATE transaction, then publishes them in seq order. */
  commit(sessionID: string, drafts: ReadonlyArray<Draft>): Effect.Effect<ReadonlyArray<Envelope>, InvalidEventError>
  /**
   * Like `commit`, but `decide` runs inside the transaction (synchronously) and can read the projection
   * to choose the drafts or reject. Nothing is written or published on rejection.
   */
  transact<E>(sessionID: string, decide: () => Decision<E>): Effect.Effect<ReadonlyArray<Envelope>, E | InvalidEventError>
  /** Publishes an ephemeral event (streaming deltas). Never touches the database. */
  publish<S extends Schema.Top>(definition: Ephemeral<string, S>, sessionID: string, data: S["Type"]): void
  /** Registers a listener for every event published after this call; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void
}

class Rejected {
  constructor(readonly error: unknown) {}
}

const codecs = new WeakMap<Durable, { decode: (u: unknown) => unknown; encode: (a: unknown) => unknown }>()
const codecOf = (definition: Durable) => {
  let codec = codecs.get(definition)
  if (!codec) {
    const schema = definition.data as Schema.Codec<unknown, unknown>
    codec = { decode: Schema.decodeUnknownSync(schema), encode: Schema.encodeSync(schema) }
    codecs.set(definition, codec)
  }
  return codec
}

/** Decodes journaled data against its declaration (replay). */
export const decode = (definition: Durable, data: unknown) => {
  try {
    return codecOf(definition).decode(data)
  } catch (cause) {
    throw new InvalidEventError({ type: definition.type, message: String((cause as Error)?.message ?? cause) })
  }
}

/** Validates draft data against its declaration; returns the decoded value and its JSON encoding. */
export const validate = (definition: Durable, data: unknown) => {
  const codec = codecOf(definition)
  try {
    const decoded = codec.decode(data)
    return { decoded, encoded: codec.encode(decoded) }
  } catch (cause) {
    throw new InvalidEventError({ type: definition.type, message: String((cause as Error)?.message ?? cause) })
  }
}

export class Bus extends Context.Service<Bus, BusShape>()("@opencode-ai/core/bus/Bus") {
  static readonly layer = (options: { readonly persist: boolean }) =>
    Layer.effect(
      Bus,
      Effect.gen(function* () {
        const database = yield* Database
        const projectors = yield* Projectors
        const client = database.client
        const journal = client.query<unknown, [string, string, number, string, number, number, string]>(
          "INSERT INTO event (id, aggregate_id, seq, type, version, time, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        const listeners = new Set<Listener>()

        const deliver = (event: BusEvent) => {
          for (const listener of listeners) {
            try {
              listener(event)
            } catch (cause) {
              // A broken subscriber must not stop delivery to the others, nor undo a committed event.
              Effect.runFork(Effect.logError("bus listener failed", cause))
            }
          }
        }

        const apply = (sessionID: string, drafts: ReadonlyArray<Draft>) => {
          let seq = projectors.currentSeq(sessionID)
          const time = Date.now()
          const envelopes: Array<Envelope> = []
          for (const { definition, data } of drafts) {
            const { decoded, encoded } = validate(definition, data)
            seq++
            const envelope: Envelope = {
              id: ascending("evt"),
              type: definition.type,
              version: definition.version,
              sessionID,
              seq,
              time,
              data: decoded,
            }
            projectors.project(envelope)
            if (options.persist) {
              journal.run(envelope.id, sessionID, seq, envelope.type, envelope.version, time, JSON.stringify(encoded))
            }
            envelopes.push(envelope)
          }
          return envelopes
        }

        const transact = <E>(sessionID: string, decide: () => Decision<E>) =>
          Effect.suspend((): Effect.Effect<ReadonlyArray<Envelope>, E | InvalidEventError> => {
            let envelopes: ReadonlyArray<Envelope>
            try {
              envelopes = database.immediate(() => {
                const decision = decide()
                if (!Array.isArray(decision)) throw new Rejected((decision as { reject: E }).reject)
                return apply(sessionID, decision as ReadonlyArray<Draft>)
              })
            } catch (cause) {
              if (cause instanceof Rejected) return Effect.fail(cause.error as E)
              if (cause instanceof InvalidEventError) return Effect.fail(cause)
              return Effect.die(cause)
            }
            for (const envelope of envelopes) deliver(envelope)
            return Effect.succeed(envelopes)
          })

        return Bus.of({
          persist: options.persist,
          transact,
          commit: (sessionID, drafts) => transact<never>(sessionID, () => drafts),
          publish: (definition, sessionID, data) => deliver({ type: definition.type, sessionID, data }),
          subscribe: (listener) => {
            listeners.add(listener)
            return () => void listeners.delete(listener)
          },
        })
      }),
    )
}
