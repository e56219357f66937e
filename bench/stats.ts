/** Small helpers for the benchmarks: percentiles, timing, aligned output. */
export const percentile = (samples: ReadonlyArray<number>, p: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index] ?? NaN
}

export const ms = (value: number) => `${value < 1 ? value.toFixed(3) : value.toFixed(2)} ms`

export const rate = (count: number, millis: number) => Math.round((count / millis) * 1000)

export const line = (label: string, value: string) => console.log(`  ${label.padEnd(58)} ${value}`)

export const section = (title: string) => console.log(`\n${title}`)

export const summary = (label: string, samples: ReadonlyArray<number>) =>
  line(label, `p50 ${ms(percentile(samples, 50))}  p99 ${ms(percentile(samples, 99))}  (n=${samples.length})`)

export const now = () => performance.now()
