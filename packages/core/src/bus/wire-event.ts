import { toWire } from "@opencode-ai/schema"
import { type Bus, type BusEvent, isDurable } from "./bus.ts"

/**
 * A bus event in upstream's envelope, its data in its JSON encoding (`Bus.encode`, the journal's): a
 * committed one with `durable { aggregateID, seq, version }`, a live one stamped with `now` (the time it was
 * published, from Effect's `Clock`). What plugins' event subscriptions and the event streams send.
 */
export const wireEvent = (bus: Bus["Service"], event: BusEvent, now: number) => {
  const encoded = bus.encode(event)
  if (isDurable(encoded)) return toWire(encoded)
  return {
    id: encoded.id,
    type: encoded.type,
    data: { ...(encoded.data as object), sessionID: encoded.sessionID, timestamp: now },
  }
}
