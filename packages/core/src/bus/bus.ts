import { Cause, Context, Effect, Layer, Option, Queue, Schema, Stream } from "effect"
import { ascending } from "../id/id.ts"
import { Database } from "../storage/database.ts"
import { type Draft, type Durable, type Envelope, type Ephemeral, InvalidEventError, type Transient } from "./event.ts"
import { checkpointCompactor } from "./checkpoints.ts"
import { journalReader, toEnvelope } from "./journal.ts"
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
  /**
   * Commits drafts for one session in one IMMEDIATE transaction, then publishes them in seq order. A draft
   * whose data does not match its declaration is a host bug, not an input error (drafts are built by host
   * code from already-validated input): it dies with `Bus.InvalidEventError` and nothing is written.
   */
  commit(sessionID: string, drafts: ReadonlyArray<Draft>): Effect.Effect<ReadonlyArray<Envelope>>
  /**
   * Like `commit`, but `decide` runs inside the transaction (synchronously) and can read the projection
   * to choose the drafts or reject. Nothing is written or published on rejection. Fails only with the
   * rejection; an invalid draft is a defect, as in `commit`.
   */
  transact<E>(sessionID: string, decide: () => Decision<E>): Effect.Effect<ReadonlyArray<Envelope>, E>
  /** Publishes an ephemeral event (streaming deltas). Never touches the database. */
  publish<S extends Schema.Struct<any>>(definition: Ephemeral<string, S>, sessionID: string, data: S["Type"]): void
  /** Registers a listener for every event published after this call; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void
  /**
   * The event with its `data` in its JSON encoding (exactly what the journal stores). Live frames and
   * log frames use this one encoding.
   */
  encode<E extends BusEvent>(event: E): E
  /**
   * One session's durable log: its journaled events with `seq > after`, in seq order (gaps where the journal
   * was compacted: an ended part's streaming checkpoints, a retention base; see docs/storage.md),
   * read page by page as the stream is pulled; with `follow`, then the events committed from now on.
   * Every event is in its JSON encoding (see `encode`). Needs the journal (`JournalDisabledError`); a
   * follower that falls `bufferLimit` live events behind fails with `LogOverflowError`.
   */
  log(options: LogOptions): Stream.Stream<Envelope, JournalDisabledError | LogOverflowError>
  /** Whether the journal holds any event of the session (it may outlive a deleted session). */
  journaled(sessionID: string): boolean
}

export interface LogOptions {
  readonly sessionID: string
  /** Events with a greater seq (exclusive). Default 0: the whole journal. */
  readonly after?: number
  /** After the journal, keep streaming events as they commit. Default false. */
  readonly follow?: boolean
  /** Live events a follower may have waiting. Default 10 000. */
  readonly bufferLimit?: number
}

/** The durable log was asked for, but the event journal is off (`events.persist` is false). */
export class JournalDisabledError extends Schema.TaggedError<JournalDisabledError>()("Bus.JournalDisabledError", {}) {
  override get message() {
    return "The durable log needs the event journal, which is off; set `events.persist: true` in opencode.json"
  }
}

/** A log follower fell too far behind the live events; reconnect with `after` = the last seq it got. */
export class LogOverflowError extends Schema.TaggedError<LogOverflowError>()("Bus.LogOverflowError", {
  limit: Schema.Number,
}) {
  override get message() {
    return `The subscriber fell more than ${this.limit} events behind and was disconnected; reconnect to continue`
  }
}

const LOG_PAGE = 500

class Rejected {
  constructor(readonly error: unknown) {}
}

const codecs = new WeakMap<Durable, { decode: (u: unknown) => unknown; encode: (a: unknown) => unknown }>()
const codecOf = (definition: Durable) => {
  let codec = codecs.get(definition)
  if (!codec) {
    const schema = definition.data as unknown as Schema.Codec<unknown, unknown>
    codec = { decode: Schema.decodeUnknownSync(schema), encode: Schema.encodeSync(schema) }
    codecs.set(definition, codec)
  }
  return codec
}

const encoders = new WeakMap<Ephemeral, (data: unknown) => unknown>()
const encoderOf = (definition: Ephemeral) => {
  let encode = encoders.get(definition)
  if (!encode) {
    encode = Schema.encodeSync(definition.data as unknown as Schema.Codec<unknown, unknown>)
    encoders.set(definition, encode)
  }
  return encode
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
        // Listeners run outside any fiber: their failures are logged with the services the bus was built
        // with (the host's logger and level), not the default runtime's.
        const host = yield* Effect.context<never>()
        const client = database.client
        const journal = client.query<unknown, [string, string, number, string, number, number, string]>(
          "INSERT INTO event (id, aggregate_id, seq, type, version, time, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        const listeners = new Set<Listener>()
        const reader = journalReader(client)
        const checkpoints = checkpointCompactor(client)
        // The JSON encoding of each live event's data, computed when it is validated, so live frames are
        // encoded exactly like journaled ones without encoding twice.
        const encodings = new WeakMap<BusEvent, unknown>()
        const ephemerals = new WeakMap<BusEvent, Ephemeral>()

        const deliver = (event: BusEvent) => {
          for (const listener of listeners) {
            try {
              listener(event)
            } catch (cause) {
              // A broken subscriber must not stop delivery to the others, nor undo a committed event.
              Effect.runSyncWith(host)(Effect.logError("bus listener failed", Cause.die(cause)))
            }
          }
        }

        // `time` is read from Effect's `Clock` inside the transaction, so a test's `TestClock` sets it.
        const apply = (sessionID: string, drafts: ReadonlyArray<Draft>, time: number) => {
          let seq = projectors.currentSeq(sessionID)
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
            encodings.set(envelope, encoded)
            if (options.persist) {
              journal.run(envelope.id, sessionID, seq, envelope.type, envelope.version, time, JSON.stringify(encoded))
              checkpoints.journaled(envelope)
            }
            envelopes.push(envelope)
          }
          return envelopes
        }

        const subscribe = (listener: Listener) => {
          listeners.add(listener)
          return () => void listeners.delete(listener)
        }

        const transact = Effect.fn("Bus.transact")(<E>(sessionID: string, decide: () => Decision<E>) =>
          Effect.clockWith((clock): Effect.Effect<ReadonlyArray<Envelope>, E> => {
            let envelopes: ReadonlyArray<Envelope>
            try {
              envelopes = database.immediate(() => {
                const decision = decide()
                if (!Array.isArray(decision)) throw new Rejected((decision as { reject: E }).reject)
                return apply(sessionID, decision as ReadonlyArray<Draft>, clock.currentTimeMillisUnsafe())
              })
            } catch (cause) {
              if (cause instanceof Rejected) return Effect.fail(cause.error as E)
              // An invalid draft (`InvalidEventError`) included: the host built it, so it is a defect.
              return Effect.die(cause)
            }
            for (const envelope of envelopes) deliver(envelope)
            return Effect.succeed(envelopes)
          }),
        )

        const implementation = Bus.of({
          persist: options.persist,
          transact,
          commit: Effect.fn("Bus.commit")((sessionID, drafts) => transact<never>(sessionID, () => drafts)),
          publish: (definition, sessionID, data) => {
            const event: Transient = { id: ascending("evt"), type: definition.type, sessionID, data }
            // Encoded on demand: most deltas reach no subscriber that asks for the wire form.
            ephemerals.set(event, definition)
            deliver(event)
          },
          subscribe,
          encode: (event) => {
            if (!encodings.has(event)) {
              const definition = ephemerals.get(event)
              if (!definition) return event
              encodings.set(event, encoderOf(definition)(event.data))
            }
            return { ...event, data: encodings.get(event) }
          },
          journaled: (sessionID) => options.persist && reader.has(sessionID),
          log: ({ sessionID, after = 0, follow = false, bufferLimit = 10_000 }) =>
            Stream.unwrap(
              Effect.gen(function* () {
                if (!options.persist) return yield* Effect.fail(new JournalDisabledError())
                let position = after
                const live = yield* Queue.bounded<Envelope, LogOverflowError>(Math.max(1, bufferLimit))
                if (follow) {
                  // Subscribe before the first journal read: anything committed from now on is queued,
                  // anything before is in the journal, and the overlap is dropped by seq.
                  const unsubscribe = subscribe((event) => {
                    if (!isDurable(event) || event.sessionID !== sessionID) return
                    if (!Queue.offerUnsafe(live, event)) {
                      Queue.failCauseUnsafe(live, Cause.fail(new LogOverflowError({ limit: bufferLimit })))
                    }
                  })
                  yield* Effect.addFinalizer(() => Effect.sync(unsubscribe))
                }
                const journal = Stream.paginate(after, (from: number) =>
                  Effect.sync(() => {
                    const rows = reader.ofSession(sessionID, from, LOG_PAGE)
                    const last = rows.at(-1)?.seq
                    if (last !== undefined) position = last
                    return [
                      rows.map(toEnvelope),
                      rows.length === LOG_PAGE && last !== undefined ? Option.some(last) : Option.none(),
                    ] as const
                  }),
                )
                if (!follow) return journal
                const tail = Stream.fromQueue(live).pipe(
                  Stream.filter((event) => event.seq > position),
                  Stream.map((event) => {
                    position = event.seq
                    return { ...event, data: encodings.has(event) ? encodings.get(event) : event.data }
                  }),
                )
                return Stream.concat(journal, tail)
              }),
            ),
        })
        return implementation
      }),
    )
}
