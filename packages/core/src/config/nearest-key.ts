/** Edit distance (insertions, deletions, substitutions and adjacent swaps count one each). */
const distance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * The declared key closest to `key` by edit distance (case ignored), when it is close enough to be a
 * likely typo: at most a third of the longer name's length, and at least one edit allowed.
 */
export const nearestKey = (key: string, declared: ReadonlyArray<string>): string | undefined => {
  let best: { name: string; cost: number } | undefined
  for (const name of declared) {
    const cost = distance(key.toLowerCase(), name.toLowerCase())
    if (best === undefined || cost < best.cost) best = { name, cost }
  }
  if (!best) return undefined
  const limit = Math.max(1, Math.floor(Math.max(key.length, best.name.length) / 3))
  return best.cost <= limit ? best.name : undefined
}
