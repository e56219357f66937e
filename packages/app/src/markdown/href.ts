/**
 * Whether a markdown link target may become a link. Only `http:`, `https:` and `mailto:` URLs and
 * scheme-less references (relative paths, `#fragments`) qualify; anything else (`javascript:`, `data:`,
 * `vbscript:`, `file:`...) stays text. Browsers ignore ASCII whitespace and control characters inside a
 * scheme (`java\tscript:` runs), so those are removed before the scheme is read.
 */
export const safeHref = (raw: string): string | undefined => {
  // oxlint-disable-next-line no-control-regex -- control characters are exactly what must be stripped
  const compact = raw.replace(/[\u0000-\u0020\u007f-\u009f]/g, "")
  if (compact === "") return undefined
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(compact)
  if (scheme) return /^(?:https?|mailto)$/i.test(scheme[1]!) ? raw.trim() : undefined
  // A colon (or an entity like `&colon;`) before any slash, `?` or `#` could read as a scheme somewhere.
  if (/^[^/?#]*[:&]/.test(compact)) return undefined
  return raw.trim()
}
