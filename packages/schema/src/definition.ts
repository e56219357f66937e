import type { Schema } from "effect"

/**
 * Event declarations. A durable event is versioned, committed with a per-session seq, projected and (when
 * the journal is on) journaled; an ephemeral event (a streaming delta, a status change) is only published.
 * Data is always a struct: on the wire every event's data also carries `sessionID` and `timestamp`.
 */
export interface Durable<Type extends string = string, S extends Schema.Struct<any> = Schema.Struct<any>> {
  readonly kind: "durable"
  readonly type: Type
  readonly version: number
  readonly data: S
}

export interface Ephemeral<Type extends string = string, S extends Schema.Struct<any> = Schema.Struct<any>> {
  readonly kind: "ephemeral"
  readonly type: Type
  readonly data: S
}

export type Definition = Durable | Ephemeral

export const durable = <const Type extends string, S extends Schema.Struct<any>>(
  type: Type,
  version: number,
  data: S,
): Durable<Type, S> => ({ kind: "durable", type, version, data })

export const ephemeral = <const Type extends string, S extends Schema.Struct<any>>(
  type: Type,
  data: S,
): Ephemeral<Type, S> => ({ kind: "ephemeral", type, data })

export const isDefinition = (value: unknown): value is Definition =>
  typeof value === "object" &&
  value !== null &&
  ((value as Definition).kind === "durable" || (value as Definition).kind === "ephemeral") &&
  typeof (value as Definition).type === "string"
