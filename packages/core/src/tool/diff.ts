/**
 * Unified diffs for the edit, write and patch tools (`metadata.diff` on the tool part, and what a
 * permission ask shows). The common head and tail are trimmed first, so an edit in a large file costs
 * time proportional to the file plus the changed region; the changed region is diffed with Myers' O(ND)
 * algorithm, bounded: past `MAX_EDIT_DISTANCE` differences the region is shown as one block removed and
 * added (still a valid diff, only not minimal), so a rewrite of a huge file never stalls the host.
 */

/** Lines of context around each change. */
const CONTEXT = 3
/** Beyond this many differing lines in the changed region, stop searching for a minimal diff. */
const MAX_EDIT_DISTANCE = 600
/** Upper bound on the diff search's steps (keeps a huge rewrite to a few milliseconds). */
const MAX_WORK = 2_000_000
/** The diff kept on a tool part; a longer one is cut with a visible marker. */
export const MAX_DIFF_CHARS = 256 * 1024

type Op = { readonly kind: " " | "-" | "+"; readonly text: string }

/** Marks an unterminated last line, so "x" and "x\\n" compare as different lines. */
const NO_EOL = "\u0000no-eol"

/** Splits text into lines; an unterminated last line carries the NO_EOL mark. */
const splitLines = (text: string): Array<string> => {
  if (text === "") return []
  if (text.endsWith("\n")) return text.slice(0, -1).split("\n")
  const lines = text.split("\n")
  lines[lines.length - 1] += NO_EOL
  return lines
}

/** Myers' shortest edit script between `a` and `b`, or undefined when it needs more than `max` edits. */
const myers = (a: ReadonlyArray<string>, b: ReadonlyArray<string>, max: number): Array<Op> | undefined => {
  const n = a.length
  const m = b.length
  const limit = Math.min(max, n + m)
  const offset = limit + 1
  const v = new Int32Array(2 * limit + 3)
  const trace: Array<Int32Array> = []
  for (let d = 0; d <= limit; d++) {
    trace.push(v.slice())
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[offset + k] = x
      if (x >= n && y >= m) {
        // Walk the trace back to recover the script.
        const ops: Array<Op> = []
        let cx = n
        let cy = m
        for (let dd = d; dd > 0; dd--) {
          const pv = trace[dd]!
          const ck = cx - cy
          const prevK = ck === -dd || (ck !== dd && pv[offset + ck - 1]! < pv[offset + ck + 1]!) ? ck + 1 : ck - 1
          const px = pv[offset + prevK]!
          const py = px - prevK
          while (cx > px && cy > py) {
            ops.push({ kind: " ", text: a[--cx]! })
            cy--
          }
          if (cx === px) ops.push({ kind: "+", text: b[--cy]! })
          else ops.push({ kind: "-", text: a[--cx]! })
        }
        while (cx > 0 && cy > 0) {
          ops.push({ kind: " ", text: a[--cx]! })
          cy--
        }
        return ops.reverse()
      }
    }
  }
  return undefined
}

/** The edit script for two line arrays: common head and tail kept, the middle diffed (bounded). */
const script = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<Op> => {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const midA = a.slice(head, a.length - tail)
  const midB = b.slice(head, b.length - tail)
  // The search costs about (n + m) * d steps: bound d by a work budget as well as by a count.
  const budget = Math.max(16, Math.floor(MAX_WORK / Math.max(1, midA.length + midB.length)))
  const middle = myers(midA, midB, Math.min(MAX_EDIT_DISTANCE, budget)) ?? [
    ...midA.map((text) => ({ kind: "-" as const, text })),
    ...midB.map((text) => ({ kind: "+" as const, text })),
  ]
  const ops: Array<Op> = []
  // Only the context next to the middle matters; the rest of the head and tail is never printed.
  for (let i = Math.max(0, head - CONTEXT); i < head; i++) ops.push({ kind: " ", text: a[i]! })
  ops.push(...middle)
  for (let i = a.length - tail; i < Math.min(a.length, a.length - tail + CONTEXT); i++)
    ops.push({ kind: " ", text: a[i]! })
  return Object.assign(ops, { skipped: Math.max(0, head - CONTEXT) })
}

/** Length of the common prefix of two strings (compared natively, a block at a time). */
const commonPrefix = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i + 4096 <= n && a.substr(i, 4096) === b.substr(i, 4096)) i += 4096
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** Length of the common suffix, at most `max`. */
const commonSuffix = (a: string, b: string, max: number): number => {
  let i = 0
  while (i + 4096 <= max && a.substr(a.length - i - 4096, 4096) === b.substr(b.length - i - 4096, 4096)) i += 4096
  while (i < max && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++
  return i
}

const atLineStart = (text: string, offset: number) =>
  offset === 0 || offset === text.length || text.charCodeAt(offset - 1) === 10

/** Start of the line `count` lines above the line starting at `offset`. */
const linesBack = (text: string, offset: number, count: number) => {
  let at = offset
  for (let k = 0; k < count && at > 0; k++) at = text.lastIndexOf("\n", at - 2) + 1
  return at
}

/** Offset just after `count` more lines from the line starting at `offset`. */
const linesForward = (text: string, offset: number, count: number) => {
  let at = offset
  for (let k = 0; k < count && at < text.length; k++) {
    const next = text.indexOf("\n", at)
    at = next === -1 ? text.length : next + 1
  }
  return at
}

const countLines = (text: string, end: number) => {
  let n = 0
  for (let at = text.indexOf("\n"); at !== -1 && at < end; at = text.indexOf("\n", at + 1)) n++
  return n
}

/**
 * The part of both texts a diff needs: the changed lines and CONTEXT lines around them, found with native
 * string comparisons, so a one-line edit in a large file splits only a few lines.
 */
const window = (a: string, b: string) => {
  const prefix = commonPrefix(a, b)
  const head = prefix === 0 ? 0 : a.lastIndexOf("\n", prefix - 1) + 1
  const suffix = commonSuffix(a, b, Math.min(a.length, b.length) - prefix)
  let tailA = a.length - suffix
  // Both tails must begin at a line start; moving forward keeps them common.
  while (tailA < a.length && !(atLineStart(a, tailA) && atLineStart(b, b.length - (a.length - tailA)))) {
    const next = a.indexOf("\n", tailA)
    tailA = next === -1 ? a.length : next + 1
  }
  const tailB = b.length - (a.length - tailA)
  const start = linesBack(a, head, CONTEXT)
  const endA = linesForward(a, tailA, CONTEXT)
  const endB = tailB + (endA - tailA)
  return { a: a.slice(start, endA), b: b.slice(start, endB), line: countLines(a, start) }
}

/**
 * A git-style unified diff of one file, `before` -> `after` (either may be `undefined` for a created or
 * deleted file). Empty string when nothing changed.
 */
export const unifiedDiff = (path: string, before: string | undefined, after: string | undefined): string => {
  if (before === after) return ""
  const region = window(before ?? "", after ?? "")
  const ops = script(splitLines(region.a), splitLines(region.b)) as Array<Op> & { skipped: number }
  const out: Array<string> = [
    `diff --git a/${path} b/${path}`,
    before === undefined ? "--- /dev/null" : `--- a/${path}`,
    after === undefined ? "+++ /dev/null" : `+++ b/${path}`,
  ]
  if (before === undefined) out.splice(1, 0, "new file mode 100644")
  if (after === undefined) out.splice(1, 0, "deleted file mode 100644")

  // Group ops into hunks with CONTEXT lines around changes.
  let i = 0
  let lineA = region.line + ops.skipped
  let lineB = region.line + ops.skipped
  const positions: Array<{ a: number; b: number }> = []
  for (const op of ops) {
    positions.push({ a: lineA, b: lineB })
    if (op.kind !== "+") lineA++
    if (op.kind !== "-") lineB++
  }
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === " ") i++
    if (i >= ops.length) break
    let start = Math.max(0, i - CONTEXT)
    // Extend while changes are within 2*CONTEXT of each other.
    let end = i
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end++
      let next = end
      while (next < ops.length && ops[next]!.kind === " ") next++
      if (next < ops.length && next - end <= 2 * CONTEXT) end = next
      else {
        end = Math.min(ops.length, end + CONTEXT)
        break
      }
    }
    const slice = ops.slice(start, end)
    const from = positions[start]!
    const countA = slice.filter((op) => op.kind !== "+").length
    const countB = slice.filter((op) => op.kind !== "-").length
    out.push(`@@ -${countA === 0 ? from.a : from.a + 1},${countA} +${countB === 0 ? from.b : from.b + 1},${countB} @@`)
    for (let j = start; j < end; j++) {
      const op = ops[j]!
      if (op.text.endsWith(NO_EOL))
        out.push(`${op.kind}${op.text.slice(0, -NO_EOL.length)}`, "\\ No newline at end of file")
      else out.push(`${op.kind}${op.text}`)
    }
    i = end
    start = end
  }
  return out.join("\n") + "\n"
}

/** Caps a diff for storage, with a visible marker saying how much was cut. */
export const capDiff = (diff: string): string =>
  diff.length <= MAX_DIFF_CHARS
    ? diff
    : `${diff.slice(0, MAX_DIFF_CHARS)}\n... [diff truncated: ${diff.length - MAX_DIFF_CHARS} more characters] ...\n`
