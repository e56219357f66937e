/**
 * The size cap of one streamed text or reasoning part. A model answer is accumulated, published as deltas
 * and stored as one row, so without a cap one runaway answer (tens of megabytes) would sit whole in
 * memory, in the database and in every subscriber's stream. At the cap the part ends with
 * `PART_TRUNCATED_MARKER` (stored and published like any text) and the runner stops reading the answer.
 */

/** The most text one streamed part keeps: 1 MiB of characters (UTF-16 code units). */
export const PART_MAX_CHARS = 1024 * 1024

/** Appended to a part cut at `PART_MAX_CHARS`. */
export const PART_TRUNCATED_MARKER = `\n\n[truncated: this part reached the ${PART_MAX_CHARS / 1024 / 1024} MiB limit; the rest of the answer was not kept]`

/**
 * What of `delta` a part holding `length` characters keeps: all of it while it fits, the part that fits
 * plus the marker when it crosses the cap (`full`), nothing once the part is full.
 */
export const fitDelta = (length: number, delta: string): { readonly text: string; readonly full: boolean } => {
  if (length >= PART_MAX_CHARS) return { text: "", full: true }
  const room = PART_MAX_CHARS - length
  return delta.length <= room
    ? { text: delta, full: false }
    : { text: delta.slice(0, room) + PART_TRUNCATED_MARKER, full: true }
}
