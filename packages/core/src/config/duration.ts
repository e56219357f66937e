/**
 * Retention durations as config spells them: a whole number and a unit, `30s`, `15m`, `12h`, `14d`, `2w`.
 * Anything else (a bare number, a fraction, a unit this does not know, zero) is not a duration: a setting
 * that deletes data must not guess what was meant.
 */
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** The duration in milliseconds, or undefined when `text` is not one. */
export const parseDuration = (text: string): number | undefined => {
  const match = /^([1-9][0-9]{0,5})([smhdw])$/.exec(text.trim())
  if (!match) return undefined
  return Number(match[1]) * UNITS[match[2]!]!
}
